package pipeline

import "testing"

// TestEveryKeyIsDocumented: every key, list and mapping a part declares has a doc line, which
// the key reference (docs/reference/job-keys.md) and `backfill help job-keys` show.
func TestEveryKeyIsDocumented(t *testing.T) {
	rows := Keys().Rows()
	if len(rows) < 100 {
		t.Fatalf("only %d keys declared", len(rows))
	}
	for _, r := range rows {
		if r.Doc == "" || r.Value == "" {
			t.Errorf("%s: value %q, doc %q", r.Key, r.Value, r.Doc)
		}
	}
}
