package community

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

func twoCliques(extra ...[2]string) fixture {
	facts := append(cliqueFacts("a1", "a2", "a3", "a4"), cliqueFacts("b1", "b2", "b3", "b4")...)
	facts = append(facts, [2]string{"a4", "b1"})
	return fixture{group: "g1", entities: []string{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "z"},
		facts: append(facts, extra...)}
}

func triangle() fixture {
	return fixture{group: "g2", entities: []string{"x", "y", "w"}, facts: cliqueFacts("x", "y", "w")}
}

// want is the community the fakes produce from members (names of x's entities): the leaf texts
// in uuid order reduced DefaultStageMergeFanIn at a time, named after the first leaf, created
// with the latest member.
func (x fixture) want(members ...string) graph.Community {
	ids := make([]string, len(members))
	var latest time.Time
	for i, m := range members {
		ids[i] = x.id(m)
		if c := time.Date(2024, 1, 1+slices.Index(x.entities, m), 0, 0, 0, 0, time.UTC); c.After(latest) {
			latest = c
		}
	}
	byID := map[string]string{}
	for _, m := range members {
		byID[x.id(m)] = m
	}
	slices.Sort(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = byID[id] + ": about " + byID[id]
	}
	first := byID[ids[0]]
	for len(parts) > 1 {
		var next []string
		for run := range slices.Chunk(parts, DefaultStageMergeFanIn) {
			if len(run) > 1 {
				next = append(next, "("+strings.Join(run, " + ")+")")
			} else {
				next = append(next, run[0])
			}
		}
		parts = next
	}
	name := "Name of " + first
	return graph.Community{UUID: graph.CommunityID(x.group, ids), GroupID: x.group, Name: name, Summary: parts[0],
		Members: ids, CreatedAt: latest, NameEmbedding: []float32{float32(len(name)), 1}}
}

// sortByUUID orders communities as the store lists them.
func sortByUUID(cs ...graph.Community) []graph.Community {
	slices.SortFunc(cs, func(a, b graph.Community) int { return strings.Compare(a.UUID, b.UUID) })
	return cs
}

func runStage(t *testing.T, env stages.Env, opts StageOptions) stages.Stats {
	t.Helper()
	st, err := Run(context.Background(), env, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRun(t *testing.T) {
	env, fake := testEnv(t)
	g1, g2 := twoCliques(), triangle()
	g1.write(t, env, "v1")
	g2.write(t, env, "v1")

	// First run: both groups computed; the isolated entity z is below the minimum size.
	if st := runStage(t, env, StageOptions{}); st.Units != 2 || st.Skipped != 0 {
		t.Fatalf("first run: %+v, want 2 units", st)
	}
	// Four members merged four at a time: one merge and a name per community.
	if calls := fake.take(); len(calls) != 2*(1+1)+(1+1) {
		t.Errorf("first run made %d LLM calls, want 6: %v", len(calls), calls)
	}
	wantG1 := sortByUUID(g1.want("a1", "a2", "a3", "a4"), g1.want("b1", "b2", "b3", "b4"))
	if got := stored(t, env, "g1"); !reflect.DeepEqual(got, wantG1) {
		t.Errorf("g1 communities:\n got %+v\nwant %+v", got, wantG1)
	}
	wantG2 := []graph.Community{g2.want("x", "y", "w")}
	if got := stored(t, env, "g2"); !reflect.DeepEqual(got, wantG2) {
		t.Errorf("g2 communities:\n got %+v\nwant %+v", got, wantG2)
	}

	// Second run, nothing changed: every group skipped by fingerprint, no LLM call.
	if st := runStage(t, env, StageOptions{}); st.Units != 0 || st.Skipped != 2 {
		t.Errorf("unchanged run: %+v, want everything skipped", st)
	}
	if calls := fake.take(); len(calls) != 0 {
		t.Errorf("unchanged run made %d LLM calls: %v", len(calls), calls)
	}

	// g1 changes upstream (z now relates to a1): only g1 is recomputed, its old communities
	// replaced as a whole.
	g1 = twoCliques([2]string{"a1", "z"})
	g1.write(t, env, "v2")
	if st := runStage(t, env, StageOptions{}); st.Units != 1 || st.Skipped != 1 {
		t.Errorf("run after a change: %+v, want 1 unit and 1 skipped", st)
	}
	calls := fake.take()
	if len(calls) != (2+1)+(1+1) {
		t.Errorf("run after a change made %d LLM calls, want 5: %v", len(calls), calls)
	}
	for _, c := range calls {
		if strings.Contains(c, "about x") {
			t.Errorf("unchanged group g2 was summarized: %s", c)
		}
	}
	wantG1 = sortByUUID(g1.want("a1", "a2", "a3", "a4", "z"), g1.want("b1", "b2", "b3", "b4"))
	if got := stored(t, env, "g1"); !reflect.DeepEqual(got, wantG1) {
		t.Errorf("g1 communities after the change:\n got %+v\nwant %+v", got, wantG1)
	}
	if got := stored(t, env, "g2"); !reflect.DeepEqual(got, wantG2) {
		t.Errorf("g2 communities changed: %+v", got)
	}

	// Other options are other inputs: every group recomputed.
	if st := runStage(t, env, StageOptions{MinSize: 5}); st.Units != 2 {
		t.Errorf("run with other options: %+v, want 2 units", st)
	}
	if got, want := stored(t, env, "g1"), []graph.Community{g1.want("a1", "a2", "a3", "a4", "z")}; !reflect.DeepEqual(got, want) {
		t.Errorf("g1 with min size 5:\n got %+v\nwant %+v", got, want)
	}
	if got := stored(t, env, "g2"); len(got) != 0 {
		t.Errorf("g2 with min size 5 kept %d communities", len(got))
	}
}

func TestRunOnlyValid(t *testing.T) {
	x := fixture{group: "g", entities: []string{"p", "q", "r", "s", "t"},
		facts: append(cliqueFacts("p", "q", "r"), [2]string{"s", "t"}), closed: map[int]bool{3: true}}
	for _, tt := range []struct {
		onlyValid bool
		want      []graph.Community
	}{
		{false, sortByUUID(x.want("p", "q", "r"), x.want("s", "t"))},
		{true, []graph.Community{x.want("p", "q", "r")}},
	} {
		env, _ := testEnv(t)
		x.write(t, env, "v1")
		runStage(t, env, StageOptions{OnlyValid: tt.onlyValid})
		if got := stored(t, env, "g"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("only valid %v:\n got %+v\nwant %+v", tt.onlyValid, got, tt.want)
		}
	}
}

// failingLLM fails every call.
type failingLLM struct{}

func (failingLLM) Call(context.Context, string, string, any, any) error {
	return errors.New("llm down")
}

func (failingLLM) TaskVersion(task string) string { return "v1-" + task }

func TestRunLLMErrorWritesNothing(t *testing.T) {
	env, _ := testEnv(t)
	triangle().write(t, env, "v1")
	env.LLM = failingLLM{}
	if _, err := Run(context.Background(), env, StageOptions{}); err == nil || !strings.Contains(err.Error(), "llm down") {
		t.Fatalf("Run = %v, want the LLM error", err)
	}
	if got := stored(t, env, "g2"); len(got) != 0 {
		t.Errorf("communities written after a failure: %+v", got)
	}
	if _, ok, err := env.Store.Fingerprint(context.Background(), Stage, "g2"); err != nil || ok {
		t.Errorf("unit recorded after a failure (ok=%v, err=%v)", ok, err)
	}
}

// badLLM answers every call with an answer that stays invalid.
type badLLM struct{}

func (badLLM) Call(_ context.Context, _, task string, _, _ any) error {
	return &wire.ValidationError{Task: task, Attempts: 3, Err: errors.New("empty answer")}
}

func (badLLM) TaskVersion(task string) string { return "v1-" + task }

// TestRunBadAnswersDegrade: with bad answers the communities are still written, with joined
// leaf texts for summaries and the leaves' names for names, and the unit is recorded as failed.
func TestRunBadAnswersDegrade(t *testing.T) {
	env, _ := testEnv(t)
	triangle().write(t, env, "v1")
	env.LLM = badLLM{}
	st, err := Run(context.Background(), env, StageOptions{})
	if err != nil || st.Failed != 1 {
		t.Fatalf("Run = %+v, %v; want the unit failed, not the stage", st, err)
	}
	got := stored(t, env, "g2")
	if len(got) != 1 || got[0].Name == "" || !strings.Contains(got[0].Summary, "\n") {
		t.Fatalf("communities %+v: want one, named after its leaves, its summary the leaves joined", got)
	}
	if fp, ok, err := env.Store.Fingerprint(context.Background(), Stage, "g2"); err != nil || !ok || !strings.HasPrefix(fp, checkpoints.FailedPrefix) {
		t.Errorf("unit record %q (ok=%v, err=%v): want it failed", fp, ok, err)
	}
}

func TestCountByGroup(t *testing.T) {
	env, _ := testEnv(t)
	twoCliques().write(t, env, "v1")
	triangle().write(t, env, "v1")
	runStage(t, env, StageOptions{})
	got, err := CountByGroup(context.Background(), env.Store)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"g1": 2, "g2": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("CountByGroup = %v, want %v", got, want)
	}
}
