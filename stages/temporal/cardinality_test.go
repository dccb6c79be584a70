package temporal

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// quotingJudge claims every candidate of the listed predicates contradicted, with the quote its
// function gives for the new sentence; it counts its calls.
type quotingJudge struct {
	preds []string
	quote func(newFact string) string
	calls int
}

func (j *quotingJudge) Call(_ context.Context, _, _ string, input, out any) error {
	j.calls++
	in, o := input.(wire.JudgeInput), out.(*wire.JudgeOutput)
	for _, c := range in.Candidates {
		if slices.Contains(j.preds, c.Predicate) {
			o.Contradictions = append(o.Contradictions, wire.Contradiction{ID: c.ID, Quote: j.quote(in.New.Fact)})
		}
	}
	return nil
}

func (j *quotingJudge) TaskVersion(task string) string { return "v1-" + task }

// resolvedStore is a store holding group g's resolution: the facts (in this group order) and
// the entities named.
func resolvedStore(t *testing.T, facts []stages.ResolvedFact, names map[string]string) *checkpoints.Store {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	for i := range facts {
		facts[i].Order = i
	}
	body, _ := json.Marshal(facts)
	var ents []graph.Entity
	for id, n := range names {
		ents = append(ents, graph.Entity{UUID: id, GroupID: "g", Name: n, CreatedAt: day("2024-01-01")})
	}
	if err := store.CommitUnit(ctx, stages.Resolve, "g", "r1", func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", ents, nil); err != nil {
			return err
		}
		return tx.PutOutput(ctx, stages.Resolve, "g", "g", body)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.UpsertEpisodes(ctx, []graph.Episode{{UUID: "e", GroupID: "g", ReferenceTime: day("2024-01-01")}}, day("2024-01-01")); err != nil {
		t.Fatal(err)
	}
	return store
}

// runStage runs the stage on g and returns its facts by uuid and its counts.
func runStage(t *testing.T, store *checkpoints.Store, judge stages.LLM, opts Options) (map[string]graph.Fact, Counts) {
	t.Helper()
	ctx := context.Background()
	env := stages.Env{Store: store, LLM: judge, Concurrency: 2, RecordTime: stages.RecordReference}
	if st, err := Run(ctx, env, opts); err != nil || st.Units != 1 || st.Failed != 0 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	out := map[string]graph.Fact{}
	if err := store.EachFact(ctx, "g", func(f graph.Fact) error { out[f.UUID] = f; return nil }); err != nil {
		t.Fatal(err)
	}
	c, ok, err := Totals(ctx, store)
	if err != nil || !ok {
		t.Fatalf("Totals = %+v, %v, %v", c, ok, err)
	}
	return out, c
}

// TestOneRelationClosesWithoutJudge: a new home (LIVES_IN, cardinality one) closes the old one
// at its start with no judge call at all; a job that declares LIVES_IN many leaves both open
// (the judge is not even asked: no negation could close the old home).
func TestOneRelationClosesWithoutJudge(t *testing.T) {
	facts := func() []stages.ResolvedFact {
		return []stages.ResolvedFact{
			named("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "Emma lives in Leeds."),
			named("bristol", "emma", "bristol", "LIVES_IN", "2024-05-18", "Emma lives in Bristol."),
		}
	}
	names := map[string]string{"emma": "Emma", "leeds": "Leeds", "bristol": "Bristol"}
	judge := &quotingJudge{preds: []string{"LIVES_IN"}, quote: func(s string) string { return s }}
	got, c := runStage(t, resolvedStore(t, facts(), names), judge, Options{})
	if judge.calls != 0 {
		t.Errorf("%d judge calls, want none", judge.calls)
	}
	if inv := got["leeds"].InvalidAt; inv == nil || !inv.Equal(day("2024-05-18")) || got["bristol"].InvalidAt != nil {
		t.Errorf("Leeds ends %v, Bristol %v; want Leeds closed at Bristol's start, Bristol open", inv, got["bristol"].InvalidAt)
	}
	if want := (Counts{JudgeCallsSaved: 1, ByCardinality: 1}); !reflect.DeepEqual(c, want) {
		t.Errorf("counts %+v, want %+v", c, want)
	}

	got, c = runStage(t, resolvedStore(t, facts(), names), judge, Options{Cardinality: map[string]string{"lives in": graph.CardinalityMany}})
	if judge.calls != 0 || got["leeds"].InvalidAt != nil {
		t.Errorf("LIVES_IN many: %d judge calls, Leeds ends %v; want no call, Leeds open", judge.calls, got["leeds"].InvalidAt)
	}
	if want := (Counts{JudgeCallsSaved: 1}); !reflect.DeepEqual(c, want) {
		t.Errorf("counts %+v, want %+v", c, want)
	}
}

// TestManyRelationSurvivesUnreasonedJudge: a judge that claims a fact of a relation of
// cardinality many contradicted, without a quote, with words it does not take from the new
// fact, with words both facts say, or with a negation that names another thing, closes
// nothing; each claim is counted by its reason.
func TestManyRelationSurvivesUnreasonedJudge(t *testing.T) {
	names := map[string]string{"emma": "Emma", "tea": "green tea", "coffee": "coffee", "paris": "Paris"}
	tests := []struct {
		name  string
		quote func(string) string
		facts []stages.ResolvedFact
	}{
		{"no quote", func(string) string { return "" }, []stages.ResolvedFact{
			named("old", "emma", "tea", "LIKES", "2024-01-08", "Emma likes green tea."),
			named("new", "emma", "tea", "LIKES", "2024-03-01", "Emma likes green tea with honey.")}},
		{"words not in the new fact", func(string) string { return "Emma only drinks coffee" }, []stages.ResolvedFact{
			named("old", "emma", "tea", "LIKES", "2024-01-08", "Emma likes green tea."),
			named("new", "emma", "tea", "LIKES", "2024-03-01", "Emma likes green tea with honey.")}},
		{"words both facts say", func(string) string { return "likes green tea" }, []stages.ResolvedFact{
			named("old", "emma", "tea", "LIKES", "2024-01-08", "Emma likes green tea."),
			named("new", "emma", "tea", "LIKES", "2024-03-01", "Emma likes green tea with honey.")}},
		{"a negation of something else", func(string) string { return "does not like coffee" }, []stages.ResolvedFact{
			named("old", "emma", "tea", "LIKES", "2024-01-08", "Emma likes green tea."),
			named("new", "emma", "coffee", "LIKES", "2024-03-01", "Emma does not like coffee as much as green tea.")}},
		{"a second visit", func(s string) string { return s }, []stages.ResolvedFact{
			named("old", "emma", "paris", "VISITED", "2024-01-08", "Emma visited Paris in January."),
			named("new", "emma", "paris", "VISITED", "2024-03-01", "Emma visited Paris again in March.")}},
	}
	// A second visit is offered to the judge as a possible duplicate only, never as a
	// contradiction (an event is not ended by another), so there is nothing to claim.
	reasons := []string{RejectNoQuote, RejectNotInNewFact, RejectInOldFact, RejectCardinality, ""}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.facts {
				if tt.facts[i].Predicate == "VISITED" {
					tt.facts[i].Kind = wire.KindEvent
				}
			}
			judge := &quotingJudge{preds: []string{"LIKES", "VISITED"}, quote: tt.quote}
			got, c := runStage(t, resolvedStore(t, tt.facts, names), judge, Options{})
			if judge.calls != 1 {
				t.Fatalf("%d judge calls, want 1", judge.calls)
			}
			// An event is an instant: its end is its start, and no later fact moves it.
			if old := got["old"]; old.InvalidAt != nil && !graph.SameTime(old.InvalidAt, old.ValidAt) {
				t.Errorf("the old fact was closed at %v", old.InvalidAt)
			}
			want := Counts{Judged: 1}
			if reasons[k] != "" {
				want.ClosuresRejected = map[string]int{reasons[k]: 1}
			}
			if !reflect.DeepEqual(c, want) {
				t.Errorf("counts %+v, want %+v", c, want)
			}
		})
	}
}

// TestNegationCloses: a new fact that says in words that the old one is over closes it, for a
// relation of cardinality many: the same pair under another predicate ("no longer likes"), and
// another object named by a comparison ("coffee over green tea").
func TestNegationCloses(t *testing.T) {
	names := map[string]string{"emma": "Emma", "tea": "green tea", "coffee": "coffee"}
	tests := []struct {
		name, quote string
		facts       []stages.ResolvedFact
	}{
		{"no longer", "no longer likes green tea", []stages.ResolvedFact{
			named("old", "emma", "tea", "LIKES", "2024-01-08", "Emma likes green tea."),
			named("new", "emma", "tea", "DISLIKES", "2024-03-01", "Emma no longer likes green tea.")}},
		{"over", "over green tea", []stages.ResolvedFact{
			named("old", "emma", "tea", "PREFERS", "2024-01-08", "Emma's favorite drink is green tea."),
			named("new", "emma", "coffee", "PREFERS", "2024-03-01", "Emma prefers coffee over green tea.")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judge := &quotingJudge{preds: []string{"LIKES", "PREFERS"}, quote: func(string) string { return tt.quote }}
			got, c := runStage(t, resolvedStore(t, tt.facts, names), judge, Options{})
			if inv := got["old"].InvalidAt; judge.calls != 1 || inv == nil || !inv.Equal(day("2024-03-01")) {
				t.Errorf("%d judge calls, old fact ends %v; want 1 call and the old fact closed on 2024-03-01", judge.calls, inv)
			}
			if want := (Counts{Judged: 1, JudgedApplied: 1}); !reflect.DeepEqual(c, want) {
				t.Errorf("counts %+v, want %+v", c, want)
			}
		})
	}
}
