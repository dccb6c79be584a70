package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// judgeLLM says every candidate is contradicted, quoting the whole new sentence, or answers
// badly when bad is set.
type judgeLLM struct {
	bad   bool
	calls int
}

func (j *judgeLLM) Call(_ context.Context, _, task string, input, out any) error {
	j.calls++
	if j.bad {
		return &wire.ValidationError{Task: task, Attempts: 3, Err: errors.New("answer: cut"), Raw: []byte(`{"duplicate_ids":[`)}
	}
	o := out.(*wire.JudgeOutput)
	in := input.(wire.JudgeInput)
	for _, c := range in.Candidates {
		o.Contradictions = append(o.Contradictions, wire.Contradiction{ID: c.ID, Quote: in.New.Fact})
	}
	return nil
}

func (j *judgeLLM) TaskVersion(task string) string { return "v1-" + task }

// TestBadJudgementClosesNothing: a judgement whose answer stays bad counts as no duplicate and
// no contradiction, the group is committed as failed, and the next run judges again.
func TestBadJudgementClosesNothing(t *testing.T) {
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// A relation of cardinality many between the same two entities: only the judge closes.
	facts := []stages.ResolvedFact{
		named("a", "alice", "tea", "LIKES", "2024-01-01", "Alice likes tea."),
		named("b", "alice", "tea", "LIKES", "2024-03-01", "Alice likes tea with milk now."),
	}
	facts[1].Order = 1
	body, _ := json.Marshal(facts)
	if err := store.CommitUnit(ctx, stages.Resolve, "g", "r1", func(tx *checkpoints.Tx) error {
		return tx.PutOutput(ctx, stages.Resolve, "g", "g", body)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpsertEpisodes(ctx, []graph.Episode{{UUID: "e", GroupID: "g", ReferenceTime: day("2024-01-01")}}, day("2024-01-01")); err != nil {
		t.Fatal(err)
	}
	j := &judgeLLM{bad: true}
	env := stages.Env{Store: store, LLM: j, Concurrency: 2, RecordTime: stages.RecordReference}
	st, err := Run(ctx, env, Options{})
	if err != nil || st.Units != 1 || st.Failed != 1 || j.calls != 1 {
		t.Fatalf("Run = %+v, %v, %d calls; want the group failed, not the stage", st, err, j.calls)
	}
	closed := func() int {
		n := 0
		_ = store.EachFact(ctx, "g", func(f graph.Fact) error {
			if f.InvalidAt != nil {
				n++
			}
			return nil
		})
		return n
	}
	if n := closed(); n != 0 {
		t.Errorf("%d facts closed after a bad judgement, want none", n)
	}
	j.bad = false
	if st, err := Run(ctx, env, Options{}); err != nil || st.Units != 1 || st.Failed != 0 || j.calls != 2 {
		t.Fatalf("next run = %+v, %v, %d calls", st, err, j.calls)
	}
	if n := closed(); n != 1 {
		t.Errorf("%d facts closed after the good judgement, want the older one", n)
	}
}
