package wire

import (
	"fmt"
	"strings"
)

// withFeedback rebuilds the conversation for a validation retry: the system message, then the
// user message prefixed with the validation error. The user message still ends with the
// fenced input, and the failed answer is not sent again, so a retry costs no more tokens than
// the first request.
func WithFeedback(msgs []Message, invalid error) []Message {
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
