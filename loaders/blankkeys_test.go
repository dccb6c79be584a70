package loaders

import (
	"strings"
	"testing"
)

// TestBlankKeysKeepRowsApart: an empty or blank record key, group, LoCoMo dia_id or LongMemEval
// session id is no key: distinct rows never become one episode or one group through it.
func TestBlankKeysKeepRowsApart(t *testing.T) {
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "in.jsonl", strings.Join([]string{
		`{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"one","record_key":"  "}`,
		`{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"two","record_key":""}`,
		`{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"three","record_key":"\t"}`,
		`{"group_id":"  ","reference_time":"2024-01-01T00:00:00Z","content":"four"}`,
		`{"group_id":"\t","reference_time":"2024-01-01T00:00:00Z","content":"five"}`,
	}, "\n")+"\n")
	rs := readAll(t, Spec{Path: jsonl})
	ids := map[string]bool{}
	bad := 0
	for _, r := range rs {
		if r.Bad != nil {
			bad++
			if r.Bad.Field != "group_id" || r.Bad.Reason != "missing" {
				t.Errorf("row %d: %+v, want group_id missing", r.Bad.Row, r.Bad)
			}
			continue
		}
		ids[r.Episode.UUID] = true
	}
	if len(ids) != 3 || bad != 2 {
		t.Errorf("%d distinct episodes and %d bad rows, want 3 and 2 (blank groups are missing ones)", len(ids), bad)
	}

	lme := writeFile(t, dir, "lme.json", `[{"question_id":"q1","haystack_session_ids":["", ""],
		"haystack_dates":["2023/05/20 (Sat) 02:21","2023/05/21 (Sun) 02:21"],
		"haystack_sessions":[[{"role":"user","content":"a"}],[{"role":"user","content":"b"}]]}]`)
	keys := map[string]bool{}
	for _, r := range readAll(t, Spec{Path: lme, Format: FormatLongMemEval}) {
		if r.Bad != nil {
			t.Fatalf("bad row %+v", r.Bad)
		}
		keys[r.Episode.RecordKey] = true
	}
	if len(keys) != 2 {
		t.Errorf("LongMemEval sessions without ids: keys %v, want 2 distinct", keys)
	}

	locomo := writeFile(t, dir, "locomo.json", `[{"sample_id":"s1","conversation":{"speaker_a":"A","speaker_b":"B",
		"session_1_date_time":"1:56 pm on 8 May, 2023",
		"session_1":[{"speaker":"A","dia_id":" ","text":"hi"},{"speaker":"B","dia_id":" ","text":"hello"}]}}]`)
	keys = map[string]bool{}
	for _, r := range readAll(t, Spec{Path: locomo, Format: FormatLoCoMo}) {
		if r.Bad != nil {
			t.Fatalf("bad row %+v", r.Bad)
		}
		keys[r.Episode.UUID] = true
	}
	if len(keys) != 2 {
		t.Errorf("LoCoMo turns with blank dia_ids: %d distinct episodes, want 2", len(keys))
	}
}
