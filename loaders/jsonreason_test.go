package loaders

import (
	"strings"
	"testing"
)

// TestBenchmarkErrorsNameTheInput: a LoCoMo or LongMemEval element of the wrong shape is a bad
// row naming its file, element and field in the input's terms, never a Go type.
func TestBenchmarkErrorsNameTheInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		format, body, field, reason string
	}{
		{FormatLoCoMo, `[{"sample_id":"s","conversation":5}]`, "conversation", "conversation is a number, want an object"},
		{FormatLoCoMo, `[{"sample_id":"s","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":5,"text":"x"}]}}]`,
			"conversation.session_1[0]", "speaker is a number, want a string"},
		{FormatLongMemEval, `[{"question_id":"q","haystack_session_ids":"x"}]`, "haystack_session_ids", "haystack_session_ids is a string, want an array"},
		{FormatLongMemEval, `[7]`, "", "the element is a number, want an object"},
	} {
		path := writeFile(t, dir, c.format+".json", c.body)
		rs := readAll(t, Spec{Path: path, Format: c.format})
		if len(rs) == 0 || rs[0].Bad == nil {
			t.Fatalf("%s: %+v, want a bad row", c.body, rs)
		}
		b := rs[0].Bad
		if b.Field != c.field || !strings.Contains(b.Reason, c.reason) || b.Row != 1 || strings.Contains(b.Reason, "Go ") || strings.Contains(b.Reason, "json.") {
			t.Errorf("%s: %+v, want field %q and reason %q", c.body, b, c.field, c.reason)
		}
	}
}
