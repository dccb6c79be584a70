package wire

import (
	"errors"
	"testing"
)

func TestStripFeedback(t *testing.T) {
	msgs := []Message{{Role: RoleSystem, Content: "sys"}, {Role: RoleUser, Content: "do it\n\n```json input\n{}\n```"}}
	again := WithFeedback(WithFeedback(msgs, errors.New("bad")), errors.New("worse"))
	if got := StripFeedback(StripFeedback(again[1].Content)); got != msgs[1].Content {
		t.Fatalf("StripFeedback twice = %q", got)
	}
	if got := StripFeedback(msgs[1].Content); got != msgs[1].Content {
		t.Fatalf("StripFeedback changed a plain message: %q", got)
	}
}
