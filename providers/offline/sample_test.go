package offline

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// sampleFact is a fact of the sample with the episode it came from.
type sampleFact struct {
	wire.ExtractedFact
	group string
	ref   string
}

// TestSampleGolden runs extract_graph over every line of examples/ and compares the answers with
// testdata/sample.golden.json (go test -update rewrites it).
func TestSampleGolden(t *testing.T) {
	type entry struct {
		Speaker string     `json:"speaker,omitempty"`
		Content string     `json:"content"`
		Output  extraction `json:"output"`
	}
	var got []entry
	for _, name := range []string{"conversations.jsonl", "records.jsonl"} {
		for _, in := range sampleInputs(t, name) {
			got = append(got, entry{in.Episode.Speaker, in.Episode.Content, extract(in.ExtractInput)})
		}
	}
	raw, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "sample.golden.json")
	if *update {
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(raw)+"\n" {
		t.Errorf("extraction of the sample changed; inspect with go test -update and git diff %s", path)
	}
}

// TestSampleFacts asserts the facts and closures examples/README.md promises.
func TestSampleFacts(t *testing.T) {
	var facts []sampleFact
	quiet := 0
	for _, name := range []string{"conversations.jsonl", "records.jsonl"} {
		for _, in := range sampleInputs(t, name) {
			out := extract(in.ExtractInput)
			checkEndpoints(t, out)
			if len(out.Facts) == 0 && in.Episode.Source == "message" {
				quiet++
			}
			for _, f := range out.Facts {
				checkStamps(t, f, in.Episode.ReferenceTime)
				facts = append(facts, sampleFact{f, in.group, in.Episode.ReferenceTime})
			}
		}
	}
	if quiet < 12 {
		t.Errorf("only %d chit-chat messages gave no facts", quiet)
	}
	find := func(group, src, pred, tgt string) sampleFact {
		t.Helper()
		for _, f := range facts {
			if f.group == group && f.Source == src && f.Predicate == pred && f.Target == tgt && f.InvalidAt == nil {
				return f
			}
		}
		t.Fatalf("no open fact %s -%s-> %s in group %s", src, pred, tgt, group)
		return sampleFact{}
	}
	changes := []struct {
		name             string
		group, src, pred string
		old, new         string
		newValid         string // "" = any
	}{
		{"employer change", "alice", "Alice", "WORKS_AT", "Kakao", "Naver", "2024-03-02T00:00:00Z"},
		{"team change", "alice", "Alice", "MEMBER_OF_TEAM", "Payments team", "Search team", "2024-02-05T00:00:00Z"},
		{"team change at the new employer", "alice", "Alice", "MEMBER_OF_TEAM", "Search team", "Clova team", ""},
		{"preference change", "alice", "Alice", "PREFERS", "green tea", "coffee", ""},
		{"이직", "jihoon", "지훈", "WORKS_AT", "카카오", "네이버", "2024-03-02T00:00:00Z"},
		{"팀 이동", "jihoon", "지훈", "MEMBER_OF_TEAM", "데이터플랫폼팀", "검색팀", "2024-02-13T00:00:00Z"},
		{"취향 변화", "jihoon", "지훈", "PREFERS", "아메리카노", "라떼", ""},
		{"plan change", "acme", "Acme Corp", "HAS_PLAN", "Basic plan", "Pro plan", "2024-03-01T00:00:00Z"},
		{"요금제 변경", "hanbit", "한빛상사", "HAS_PLAN", "베이직 요금제", "프로 요금제", "2024-03-01T00:00:00Z"},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			old, new := find(c.group, c.src, c.pred, c.old), find(c.group, c.src, c.pred, c.new)
			if old.ValidAt == nil || new.ValidAt == nil {
				t.Fatalf("both facts need valid_at: %v, %v", old.ValidAt, new.ValidAt)
			}
			if c.newValid != "" && *new.ValidAt != c.newValid {
				t.Errorf("new fact valid_at = %s, want %s", *new.ValidAt, c.newValid)
			}
			if !mustTime(t, *old.ValidAt).Before(mustTime(t, *new.ValidAt)) {
				t.Errorf("old fact starts %s, not before the new one %s", *old.ValidAt, *new.ValidAt)
			}
			// The judge must close the old fact when it sees the new one.
			out := judge(wire.JudgeInput{ReferenceTime: new.ref,
				New:        wire.FactIn{Predicate: new.Predicate, Fact: new.Fact, ValidAt: new.ValidAt},
				Candidates: []wire.FactIn{{ID: "I0", Predicate: old.Predicate, Fact: old.Fact, ValidAt: old.ValidAt}}})
			if len(out.Contradictions) != 1 {
				t.Errorf("judge: %q does not contradict %q", new.Fact, old.Fact)
			}
		})
	}
	t.Run("closures", func(t *testing.T) {
		for _, c := range []struct{ group, src, tgt, invalid string }{
			{"alice", "Alice", "Kakao", "2024-03-02T00:00:00Z"},
			{"jihoon", "지훈", "카카오", "2024-03-02T00:00:00Z"},
			{"shop", "Aurora Lamp", "Downtown store", "2024-12-25T00:00:00Z"},
			{"maeil-shop", "무선 이어폰 X2", "강남점", "2024-12-25T00:00:00Z"},
		} {
			if !hasFact(facts, c.group, c.src, c.tgt, func(f sampleFact) bool { return f.InvalidAt != nil && *f.InvalidAt == c.invalid }) {
				t.Errorf("no fact %s → %s with invalid_at %s", c.src, c.tgt, c.invalid)
			}
		}
	})
	t.Run("plans", func(t *testing.T) {
		for _, c := range []struct{ group, src, tgt, date string }{
			{"alice", "Alice", "Naver", "2024-05-31"},
			{"jihoon", "지훈", "보고서", "2024-03-15"},
		} {
			ok := hasFact(facts, c.group, c.src, c.tgt, func(f sampleFact) bool {
				return f.Predicate == "PLANS_TO" && f.Kind == wire.KindPlan && f.InvalidAt == nil &&
					f.ValidAt != nil && *f.ValidAt == f.ref && strings.Contains(f.Fact, c.date)
			})
			if !ok {
				t.Errorf("no plan %s → %s valid from its reference time, due %s", c.src, c.tgt, c.date)
			}
		}
	})
}

func hasFact(facts []sampleFact, group, src, tgt string, ok func(sampleFact) bool) bool {
	for _, f := range facts {
		if f.group == group && f.Source == src && f.Target == tgt && ok(f) {
			return true
		}
	}
	return false
}

// checkStamps asserts a fact's kind and dates are well formed and that it does not start after
// it was stated unless it is a scheduled state.
func checkStamps(t *testing.T, f wire.ExtractedFact, ref string) {
	t.Helper()
	switch f.Kind {
	case wire.KindState, wire.KindEvent, wire.KindPlan, wire.KindScheduledState:
	default:
		t.Errorf("%q: kind %q", f.Fact, f.Kind)
	}
	if f.ValidAt != nil && f.Kind != wire.KindScheduledState && mustTime(t, *f.ValidAt).After(mustTime(t, ref)) {
		t.Errorf("%q starts %s, after it was said (%s)", f.Fact, *f.ValidAt, ref)
	}
	if f.InvalidAt != nil {
		mustTime(t, *f.InvalidAt)
	}
}
