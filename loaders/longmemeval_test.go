package loaders

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

const lmeFixture = "testdata/longmemeval_small.json"

func TestLongMemEvalRead(t *testing.T) {
	rs := readAll(t, Spec{Path: lmeFixture, Format: FormatLongMemEval, Timezone: mustLoc(t, "Asia/Seoul")})
	var eps []graph.Episode
	var bads []*Bad
	for _, r := range rs {
		if r.Bad != nil {
			bads = append(bads, r.Bad)
		} else {
			eps = append(eps, r.Episode)
		}
	}
	if len(eps) != 6 || len(bads) != 3 {
		t.Fatalf("got %d episodes and %d bad, want 6 and 3", len(eps), len(bads))
	}
	first := eps[0]
	if first.GroupID != "e47becba" || first.Speaker != "user" || first.Source != graph.SourceMessage ||
		!first.ReferenceTime.Equal(time.Date(2023, 5, 19, 17, 21, 0, 0, time.UTC)) ||
		first.RecordKey != "e47becba/sharegpt_yywfPmF_0/1" || first.Seq != 1 {
		t.Errorf("first episode = %+v", first)
	}
	for i, e := range eps {
		if e.Seq != int64(i+1) {
			t.Errorf("episode %d has seq %d: good episodes are numbered consecutively", i, e.Seq)
		}
	}
	wantBad := []struct {
		row          int64
		field, cause string
	}{
		{2, "haystack_sessions[0][1].content", "empty"},
		{3, "haystack_sessions", "2 session ids and 1 dates for 2 sessions"},
		{4, "haystack_dates[0]", "does not match layout"},
	}
	for i, w := range wantBad {
		if b := bads[i]; b.Row != w.row || b.Field != w.field || !strings.Contains(b.Reason, w.cause) || b.Raw == "" {
			t.Errorf("bad %d = %+v, want row %d field %q reason ~%q", i, b, w.row, w.field, w.cause)
		}
	}
	golden(t, "longmemeval_small.golden", render(t, rs))
}

func TestImportLongMemEval(t *testing.T) {
	var eps []graph.Episode
	err := ImportLongMemEval(context.Background(), lmeFixture, func(e graph.Episode) error {
		eps = append(eps, e)
		return nil
	})
	var bre *BadRowsError
	if !errors.As(err, &bre) || bre.Count != 3 || len(bre.First) != 3 || !strings.Contains(err.Error(), lmeFixture) {
		t.Fatalf("err = %v, want a BadRowsError with 3 records", err)
	}
	if len(eps) != 6 || eps[0].ReferenceTime != time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC) {
		t.Errorf("got %d episodes, first %+v", len(eps), eps[0])
	}
	if g := eps[4].GroupID; g != MapGroupID("gpt4 2655b836/abs") {
		t.Errorf("mapped group = %q", g)
	}
	if k := eps[4].RecordKey; k != "gpt4 2655b836/abs/s_1/1" {
		t.Errorf("record key keeps the question id as written: %q", k)
	}
}

func TestBenchmarkArrayErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, want string }{
		{"not an array", `{"question_id":"x"}`, "does not start with '['"},
		{"broken json", `[{"question_id":"x",`, "element 1"},
		{"empty file", ``, "reading JSON array"},
	}
	for _, tt := range tests {
		p := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "_")+".json", tt.content)
		for _, f := range []string{FormatLongMemEval, FormatLoCoMo} {
			err := Read(context.Background(), LocalFS{}, Spec{Path: p, Format: f}, func(Result) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s/%s: err = %v, want %q", tt.name, f, err, tt.want)
			}
		}
	}
	// Elements of the wrong shape are bad records, and reading goes on.
	p := writeFile(t, dir, "shapes.json", `[1, {"question_id":"q","haystack_session_ids":[],"haystack_dates":[],"haystack_sessions":[]}, "s"]`)
	rs := readAll(t, Spec{Path: p, Format: FormatLongMemEval})
	if len(rs) != 2 || rs[0].Bad == nil || rs[0].Bad.Row != 1 || rs[1].Bad == nil || rs[1].Bad.Row != 3 {
		t.Errorf("results = %+v", rs)
	}
}
