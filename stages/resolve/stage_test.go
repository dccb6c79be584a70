package resolve

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// store writes a group's episodes and extractions as the ingest and extract stages would.
func store(t *testing.T, env stages.Env, eps []graph.Episode, exs []stages.Extraction) {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Store.UpsertEpisodes(ctx, eps, t0); err != nil {
		t.Fatal(err)
	}
	for i, ep := range eps {
		body, _ := json.Marshal(exs[i])
		if err := env.Store.CommitUnit(ctx, stages.Extract, ep.UUID, string(body), func(tx *checkpoints.Tx) error {
			return tx.PutOutput(ctx, stages.Extract, ep.UUID, ep.GroupID, body)
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunKeepsGroupsApart(t *testing.T) {
	f := &fakeLLM{sameEntity: func(a, b wire.CandidateIn) bool { return true }, sameFact: func(a, b wire.FactIn) bool { return true }}
	env := testEnv(t, f)
	ctx := context.Background()
	for _, g := range []string{"a", "b"} {
		eps, exs := seoyeon()
		for i := range eps {
			eps[i].UUID, eps[i].GroupID = graph.EpisodeID(g, eps[i].Content), g
		}
		store(t, env, eps, exs)
	}
	st, err := Run(ctx, env, personOrg)
	if err != nil || st.Units != 2 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	if calls, _ := f.take(); calls != 2 {
		t.Errorf("%d LLM calls, want one per group", calls)
	}
	groupOf := map[string]string{}
	if err := env.Store.EachEntity(ctx, "", func(e graph.Entity) error {
		if prev, ok := groupOf[e.UUID]; ok {
			t.Errorf("entity %s in groups %s and %s", e.UUID, prev, e.GroupID)
		}
		groupOf[e.UUID] = e.GroupID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(groupOf) != 8 {
		t.Errorf("%d entities, want 4 per group", len(groupOf))
	}
	for _, g := range []string{"a", "b"} {
		body, ok, err := env.Store.Output(ctx, Stage, g)
		if err != nil || !ok {
			t.Fatalf("no resolution of %s: %v", g, err)
		}
		var facts []Fact
		if err := json.Unmarshal(body, &facts); err != nil {
			t.Fatal(err)
		}
		if len(facts) != 4 {
			t.Errorf("group %s: %d facts", g, len(facts))
		}
		for _, x := range facts {
			if groupOf[x.Source] != g || groupOf[x.Target] != g {
				t.Errorf("group %s: fact %q links entities of groups %s and %s", g, x.Fact, groupOf[x.Source], groupOf[x.Target])
			}
		}
		if m, err := loadMemo(ctx, env.Store, g); err != nil || m == nil || len(m.Entities) != 3 {
			t.Errorf("group %s: memo %+v, %v", g, m, err)
		}
	}
	st, err = Run(ctx, env, personOrg)
	if err != nil || st.Units != 0 || st.Skipped != 2 {
		t.Fatalf("re-run = %+v, %v", st, err)
	}
	opts := personOrg
	opts.GreyThreshold = 0.7
	if st, err = Run(ctx, env, opts); err != nil || st.Units != 2 {
		t.Fatalf("run with changed options = %+v, %v", st, err)
	}
	if calls, _ := f.take(); calls != 0 {
		t.Errorf("changed options: %d LLM calls, want every answer from the memo", calls)
	}
}

// TestBadAnswersKeepPairsApart: when the model's answers stay bad, the ambiguous pairs stay
// apart, nothing is remembered, the group unit is committed as failed and the next run asks
// again.
func TestBadAnswersKeepPairsApart(t *testing.T) {
	f := &fakeLLM{bad: true}
	env := testEnv(t, f)
	ctx := context.Background()
	eps, exs := seoyeon()
	store(t, env, eps, exs)
	st, err := Run(ctx, env, personOrg)
	if err != nil || st.Units != 1 || st.Failed != 1 {
		t.Fatalf("Run = %+v, %v; want the group failed, not the stage", st, err)
	}
	var names []string
	_ = env.Store.EachEntity(ctx, "", func(e graph.Entity) error { names = append(names, e.Name); return nil })
	if len(names) != 6 {
		t.Errorf("entities %q: want the 6 names apart", names)
	}
	if m, _ := loadMemo(ctx, env.Store, eps[0].GroupID); m == nil || len(m.Entities) != 0 {
		t.Errorf("memo %+v: a bad answer must not be remembered", m)
	}
	f.take()
	f.bad, f.sameEntity = false, func(a, b wire.CandidateIn) bool { return true }
	if st, err := Run(ctx, env, personOrg); err != nil || st.Units != 1 || st.Failed != 0 {
		t.Fatalf("next run = %+v, %v", st, err)
	}
	if calls, _ := f.take(); calls == 0 {
		t.Error("the next run did not ask again")
	}
}
