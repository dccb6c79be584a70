package temporal_test

import (
	"sync/atomic"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestJobCardinality runs two homes through a job with the offline responder (counting the
// judge_fact requests on the way): under the shipped cardinality (LIVES_IN one) the new home
// closes the old one at its start with no judge call; a job whose ontology makes LIVES_IN many
// keeps both open, again with no call (no answer could close the old home), and reports the
// call as saved.
func TestJobCardinality(t *testing.T) {
	eps := []ep{{"2026-01-10T09:00:00Z", "Emma", "I live in Leeds."}, {"2026-05-18T09:00:00Z", "Emma", "I live in Bristol now."}}
	tests := []struct {
		name, ontology string
		leedsEnd       string
		byCardinality  int
	}{
		{"shipped LIVES_IN one", "", "@1", 1},
		{"the job makes LIVES_IN many", "ontology: {edge_types: [{name: LIVES_IN, cardinality: many}]}", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model, url := newTestLLM(t, nil, false)
			spec := jobSpec{dir: t.TempDir(), baseURL: url, extra: tt.ontology}
			writeInputs(t, spec.dir, eps)
			j := loadJob(t, spec)
			rep := runJob(t, j, now)
			st := readState(t, j)
			sc := scenario{eps: eps}
			leeds := find(t, st.facts, "Leeds")
			if n := model.judged.Load(); n != 0 {
				t.Errorf("%d judge_fact requests, want none", n)
			}
			if !graph.SameTime(leeds.InvalidAt, sc.at(t, tt.leedsEnd)) || find(t, st.facts, "Bristol").InvalidAt != nil {
				t.Errorf("Leeds ends %v, want %q; Bristol open", leeds.InvalidAt, tt.leedsEnd)
			}
			tc := rep.Temporal
			if tc == nil || tc.ByCardinality != tt.byCardinality || tc.JudgeCallsSaved != 1 || tc.Judged != 0 {
				t.Errorf("report temporal %+v, want %d by cardinality, 1 judge call saved, none made", tc, tt.byCardinality)
			}
		})
	}
}

// TestJobRejectsUnquotedClaims: a judge that claims every candidate contradicted with words
// that are not the new fact's (the old fact's sentence) closes nothing through a job, and the
// report counts its claims as rejected.
func TestJobRejectsUnquotedClaims(t *testing.T) {
	// Two statements of one home: the judge is asked (the same relation between the same
	// entities), as it would be for an attribute change.
	eps := []ep{{"2026-01-10T09:00:00Z", "Emma", "I live in Leeds."}, {"2026-03-10T09:00:00Z", "Emma", "I have lived in Leeds since 2020."}}
	var claims atomic.Int64
	model, url := newTestLLM(t, claimEverything(func(_ wire.JudgeInput, c wire.FactIn) string { return c.Fact }, &claims), false)
	spec := jobSpec{dir: t.TempDir(), baseURL: url}
	writeInputs(t, spec.dir, eps)
	j := loadJob(t, spec)
	rep := runJob(t, j, now)
	st := readState(t, j)
	claimed := int(claims.Load())
	if model.judged.Load() == 0 || claimed == 0 {
		t.Fatalf("%d judge calls, %d claims: the judge was never asked to close anything", model.judged.Load(), claimed)
	}
	for _, f := range st.facts {
		if f.InvalidAt != nil {
			t.Errorf("%q closed at %v by an unquoted claim", f.Fact, f.InvalidAt)
		}
	}
	if tc := rep.Temporal; tc == nil || tc.Rejected() != claimed || tc.JudgedApplied != 0 {
		t.Errorf("report temporal %+v, want %d claims rejected", tc, claimed)
	}
}

// TestJobEagerJudgeKeepsAJobAPlanWouldEnd: a judge that claims every candidate it is shown
// contradicted, quoting the whole new sentence (as a weak model copying its input does), cannot
// end a job through a plan to resign: a plan contradicts only an earlier plan, so the job is not
// even offered to it. (Through main's rules this judge closed the demo's "Alice works at Naver"
// on the day she announced she would resign.)
func TestJobEagerJudgeKeepsAJobAPlanWouldEnd(t *testing.T) {
	eps := []ep{{"2026-01-10T09:00:00Z", "Alice", "I work at Naver."},
		{"2026-03-10T09:00:00Z", "Alice", "The work at Naver is too hectic. I will resign at the end of next month."}}
	var offered atomic.Int64
	model, url := newTestLLM(t, claimEverything(func(in wire.JudgeInput, _ wire.FactIn) string { return in.New.Fact }, &offered), false)
	spec := jobSpec{dir: t.TempDir(), baseURL: url}
	writeInputs(t, spec.dir, eps)
	j := loadJob(t, spec)
	rep := runJob(t, j, now)
	st := readState(t, j)
	find(t, st.facts, "resign")
	if model.judged.Load() == 0 {
		t.Fatalf("no judge_fact request: the plan was never compared with the job")
	}
	if job := find(t, st.facts, "works at Naver"); job.InvalidAt != nil {
		t.Errorf("%q closed at %v by a plan", job.Fact, job.InvalidAt)
	}
	if offered.Load() != 0 || rep.Temporal == nil || rep.Temporal.JudgedApplied != 0 {
		t.Errorf("%d candidates offered to the judge, report %+v; want none offered, none applied", offered.Load(), rep.Temporal)
	}
}

// claimEverything is a judge that claims every candidate it is shown contradicted, with the quote
// quote gives for it, counting its claims in n.
func claimEverything(quote func(wire.JudgeInput, wire.FactIn) string, n *atomic.Int64) func(wire.JudgeInput) wire.JudgeOutput {
	return func(in wire.JudgeInput) wire.JudgeOutput {
		out := wire.JudgeOutput{Duplicates: []string{}, Contradictions: []wire.Contradiction{}}
		for _, c := range in.Candidates {
			out.Contradictions = append(out.Contradictions, wire.Contradiction{ID: c.ID, Quote: quote(in, c)})
			n.Add(1)
		}
		return out
	}
}
