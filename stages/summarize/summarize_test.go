package summarize

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// fakeLLM summarizes an entity as "summary of <name> (<n> facts)" and counts calls.
type fakeLLM struct {
	mu    sync.Mutex
	calls []int // entities per call
	bad   bool  // every answer stays invalid
}

func (f *fakeLLM) Call(_ context.Context, stage, task string, input, out any) error {
	if stage != Stage || task != wire.TaskSummarize {
		return fmt.Errorf("unexpected %s/%s", stage, task)
	}
	in := input.(wire.SummarizeInput)
	f.mu.Lock()
	f.calls = append(f.calls, len(in.Entities))
	f.mu.Unlock()
	if f.bad {
		return &wire.ValidationError{Task: task, Attempts: 3, Err: errors.New("empty answer")}
	}
	o := out.(*wire.SummarizeOutput)
	for _, e := range in.Entities {
		o.Summaries = append(o.Summaries, wire.EntitySummary{ID: e.ID, Summary: fmt.Sprintf(" summary of %s (%d facts) ", e.Name, len(e.Facts))})
	}
	o.Summaries = append(o.Summaries, wire.EntitySummary{ID: "not-asked", Summary: "ignored"})
	return nil
}

// TaskVersion is the version of a task: fixed, so fingerprints depend on inputs only.
func (f *fakeLLM) TaskVersion(task string) string { return "v1-" + task }

// seed stores a group "g" whose Alice has 12 long facts, Kakao one short fact and Lonely none.
func seed(t *testing.T) *checkpoints.Store {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ep := graph.Episode{UUID: "e1", GroupID: "g", Source: graph.SourceText, ReferenceTime: t0}
	if _, err := store.UpsertEpisodes(ctx, []graph.Episode{ep}, t0); err != nil {
		t.Fatal(err)
	}
	id := func(n string) string { return graph.EntityID("g", n) }
	ents := []graph.Entity{
		{UUID: id("alice"), GroupID: "g", Name: "Alice", Labels: []string{"Person"}, Attributes: map[string]any{"city": "Pangyo"}},
		{UUID: id("kakao"), GroupID: "g", Name: "Kakao"},
		{UUID: id("lonely"), GroupID: "g", Name: "Lonely"},
	}
	var facts []graph.Fact
	for i := range 12 { // Alice's facts are long together; Kakao has one short fact
		tgt := id("kakao")
		text := fmt.Sprintf("Alice wrote a long report number %d about the payments platform of Kakao.", i)
		if i > 0 {
			tgt = id(fmt.Sprint("x", i))
			ents = append(ents, graph.Entity{UUID: tgt, GroupID: "g", Name: fmt.Sprint("X", i)})
		}
		at := t0.AddDate(0, 0, 12-i) // newest first, so the summary input must reorder them
		facts = append(facts, graph.Fact{UUID: fmt.Sprint("f", i), GroupID: "g", SourceUUID: id("alice"), TargetUUID: tgt, Name: "WROTE",
			Fact: text, ValidAt: &at, ReferenceTime: t0, CreatedAt: t0})
	}
	if err := store.CommitUnit(ctx, stages.Temporal, "g", "fp1", func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", ents, nil); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, "g", facts, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestSummaries(t *testing.T) {
	ctx := context.Background()
	store := seed(t)
	f := &fakeLLM{}
	env := stages.Env{Store: store, LLM: f, Concurrency: 2}
	st, err := Run(ctx, env, Options{MaxFacts: 5})
	if err != nil || st.Units != 1 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	if len(f.calls) != 1 || f.calls[0] != 1 {
		t.Fatalf("calls %v: want one call for Alice only", f.calls)
	}
	got := map[string]graph.Entity{}
	if err := store.EachEntity(ctx, "g", func(e graph.Entity) error { got[e.Name] = e; return nil }); err != nil {
		t.Fatal(err)
	}
	if s := got["Alice"].Summary; s != "summary of Alice (5 facts)" {
		t.Errorf("Alice: %q (want the LLM's summary of the 5 most recent facts, trimmed)", s)
	}
	if a := got["Alice"].Attributes; a["city"] != "Pangyo" {
		t.Errorf("Alice's attributes lost: %v", a)
	}
	if s := got["Kakao"].Summary; !strings.HasPrefix(s, "Alice wrote a long report number 0") {
		t.Errorf("Kakao: %q, want its only fact without a call", s)
	}
	if s := got["Lonely"].Summary; s != "" {
		t.Errorf("Lonely: %q, want empty", s)
	}
	if st, err := Run(ctx, env, Options{MaxFacts: 5}); err != nil || st.Skipped != 1 || len(f.calls) != 1 {
		t.Errorf("re-run = %+v, %v, calls %v", st, err, f.calls)
	}
}

// TestBadAnswerLeavesJoinedFacts: a summary whose answer stays bad is the joined facts, the
// group unit is committed as failed and the next run asks again.
func TestBadAnswerLeavesJoinedFacts(t *testing.T) {
	ctx := context.Background()
	store := seed(t)
	f := &fakeLLM{bad: true}
	env := stages.Env{Store: store, LLM: f, Concurrency: 2}
	st, err := Run(ctx, env, Options{MaxFacts: 5})
	if err != nil || st.Units != 1 || st.Failed != 1 {
		t.Fatalf("Run = %+v, %v; want the unit failed, not the stage", st, err)
	}
	var alice graph.Entity
	_ = store.EachEntity(ctx, "g", func(e graph.Entity) error {
		if e.Name == "Alice" {
			alice = e
		}
		return nil
	})
	if !strings.HasPrefix(alice.Summary, "Alice wrote a long report number 4 ") || !strings.HasSuffix(alice.Summary, "number 0 about the payments platform of Kakao.") {
		t.Errorf("Alice: %q, want her 5 latest facts joined", alice.Summary)
	}
	f.bad = false
	if st, err := Run(ctx, env, Options{MaxFacts: 5}); err != nil || st.Units != 1 || st.Failed != 0 || len(f.calls) != 2 {
		t.Errorf("next run = %+v, %v, calls %v; want the failed unit run again", st, err, f.calls)
	}
}

func TestFactLinesOldestFirst(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	later := t0.AddDate(0, 1, 0)
	fs := []graph.Fact{
		{UUID: "b", Fact: "second", ValidAt: &later, ReferenceTime: t0},
		{UUID: "a", Fact: "first", ReferenceTime: t0},
		{UUID: "c", Fact: "third", ReferenceTime: later.AddDate(0, 0, 1)},
	}
	if got := strings.Join(factLines(fs, 2), ","); got != "second,third" {
		t.Errorf("factLines = %s", got)
	}
}
