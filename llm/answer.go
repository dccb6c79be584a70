package llm

import (
	"bytes"
	"fmt"
	"strings"
)

// answerText takes the content of the first choice, without a surrounding Markdown code fence
// (some local servers add one). A refusal or a missing choice is an error that the caller
// treats like an answer failing validation.
func answerText(resp ChatResponse) ([]byte, error) {
	if len(resp.Choices) == 0 {
		return nil, &SchemaError{Msg: "no choices in the response"}
	}
	m := resp.Choices[0].Message
	if m.Content == "" && m.Refusal != "" {
		return nil, &SchemaError{Msg: "refused: " + m.Refusal}
	}
	return []byte(stripFence(m.Content)), nil
}

// checkAnswer validates an answer text against the task's schema; an empty answer says so.
func checkAnswer(t *Task, answer []byte) error {
	if len(bytes.TrimSpace(answer)) == 0 {
		return &SchemaError{Msg: "empty answer"}
	}
	return t.Schema.Validate(answer)
}

// maxRawAnswer bounds the raw answer a ValidationError keeps.
const maxRawAnswer = 8 << 10

// clip returns at most n bytes of b (cut on a UTF-8 boundary), as a copy.
func clip(b []byte, n int) []byte {
	if len(b) > n {
		for n > 0 && !utf8RuneStart(b[n]) {
			n--
		}
		b = b[:n]
	}
	return append([]byte(nil), b...)
}

// stripFence removes a leading "```json" (or "```") line and a trailing "```".
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return s
	}
	t = strings.TrimSuffix(t, "```")
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	} else {
		return s
	}
	return strings.TrimSpace(t)
}

// withFeedback rebuilds the conversation for a validation retry: the system message, then the
// user message prefixed with the validation error. The user message still ends with the
// fenced input, and the failed answer is not sent again, so a retry costs no more tokens than
// the first request.
func withFeedback(msgs []Message, invalid error) []Message {
	out := make([]Message, len(msgs))
	copy(out, msgs)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == RoleUser {
			out[i].Content = fmt.Sprintf("%s%v. %s%s", feedbackIntro, invalid, feedbackOutro, out[i].Content)
			break
		}
	}
	return out
}

// feedbackIntro and feedbackOutro surround the validation error that withFeedback puts before
// the user message.
const (
	feedbackIntro = "Your previous answer was rejected: "
	feedbackOutro = "Answer again with one JSON object that follows the response schema exactly.\n\n"
)

// StripFeedback returns a user message as it was before withFeedback prefixed it, so a
// server can tell a validation retry from a new request.
func StripFeedback(content string) string {
	if !strings.HasPrefix(content, feedbackIntro) {
		return content
	}
	if i := strings.Index(content, feedbackOutro); i >= 0 {
		return content[i+len(feedbackOutro):]
	}
	return content
}
