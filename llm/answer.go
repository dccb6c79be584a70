package llm

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tkgraph/backfill/llm/wire"
)

// answerText takes the content of the first choice, without a surrounding Markdown code fence
// (some local servers add one). A refusal or a missing choice is an error that the caller
// treats like an answer failing validation.
func answerText(resp wire.ChatResponse) ([]byte, error) {
	if len(resp.Choices) == 0 {
		return nil, &wire.SchemaError{Msg: "no choices in the response"}
	}
	m := resp.Choices[0].Message
	if m.Content == "" && m.Refusal != "" {
		return nil, &wire.SchemaError{Msg: "refused: " + m.Refusal}
	}
	return []byte(stripFence(m.Content)), nil
}

// checkAnswer validates an answer text against the task's schema; an empty answer says so.
func checkAnswer(t *wire.Task, answer []byte) error {
	if len(bytes.TrimSpace(answer)) == 0 {
		return &wire.SchemaError{Msg: "empty answer"}
	}
	return t.Schema.Validate(answer)
}

// maxRawAnswer bounds the raw answer a wire.ValidationError keeps.
const maxRawAnswer = 8 << 10

// clip returns at most n bytes of b (cut on a UTF-8 boundary), as a copy.
func clip(b []byte, n int) []byte {
	if len(b) > n {
		for n > 0 && !utf8.RuneStart(b[n]) {
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
