package extract

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// snapshot is a JSON record episode of object obj at hour h of 2024-05-01.
func snapshot(key, obj string, h int, content string, rec graph.Record) graph.Episode {
	rec.Object = obj
	return graph.Episode{UUID: graph.EpisodeID("g", key), GroupID: "g", Source: graph.SourceJSON, Content: content, RecordKey: key,
		ReferenceTime: time.Date(2024, 5, 1, h, 0, 0, 0, time.UTC), Seq: int64(len(key)*100 + h), Record: &rec}
}

// recordEnv is a store holding eps, with f as the LLM.
func recordEnv(t *testing.T, f *fakeLLM, eps ...graph.Episode) stages.Env {
	t.Helper()
	store, err := checkpoints.Open(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	stageEpisodes(t, store, eps...)
	return stages.Env{Store: store, LLM: f, Concurrency: 2}
}

func stageEpisodes(t *testing.T, store *checkpoints.Store, eps ...graph.Episode) {
	t.Helper()
	if _, err := store.UpsertEpisodes(context.Background(), eps, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
}

// plans returns the plan of every episode of group g, by record key.
func plans(t *testing.T, env stages.Env, opts Options) map[string]Plan {
	t.Helper()
	eps, err := env.Store.GroupEpisodes(context.Background(), "g")
	if err != nil {
		t.Fatal(err)
	}
	g := NewGroup(eps, opts)
	out := map[string]Plan{}
	for i, ep := range eps {
		out[ep.RecordKey] = g.Plan(i)
	}
	return out
}

func changes(p Plan) []string {
	if p.Input.Snapshot == nil {
		return nil
	}
	return p.Input.Snapshot.Changes
}

// A record that arrives late (later in the input, earlier in reference time) is diffed
// against the snapshot that preceded it in time, and its successor is then diffed against it:
// only those two units run again.
func TestLateSnapshotDiffedAgainstItsPredecessor(t *testing.T) {
	f := &fakeLLM{}
	s1 := snapshot("s1", "7", 9, `{"issue":{"state":"open","title":"Login fails"}}`, graph.Record{})
	s3 := snapshot("s3", "7", 11, `{"issue":{"state":"closed","title":"Login fails"}}`, graph.Record{})
	other := snapshot("o1", "8", 10, `{"issue":{"state":"pending","title":"Other"}}`, graph.Record{})
	env := recordEnv(t, f, s1, s3, other)
	p := plans(t, env, Options{})
	if got := changes(p["s3"]); !reflect.DeepEqual(got, []string{`issue.state: "open" → "closed"`}) {
		t.Errorf("s3 before the late record: %q", got)
	}
	if p["s1"].Input.Snapshot != nil || p["o1"].Input.Snapshot != nil {
		t.Error("a first snapshot has no context")
	}
	if len(p["s3"].Input.Previous) != 0 {
		t.Error("a snapshot is given previous episodes")
	}
	if _, err := Run(context.Background(), env, Options{}); err != nil {
		t.Fatal(err)
	}
	f.take()

	s2 := snapshot("s2", "7", 10, `{"issue":{"state":"pending","title":"Login fails"}}`, graph.Record{})
	stageEpisodes(t, env.Store, s2)
	p = plans(t, env, Options{})
	if got := changes(p["s2"]); !reflect.DeepEqual(got, []string{`issue.state: "open" → "pending"`}) {
		t.Errorf("late s2: %q", got)
	}
	if got := changes(p["s3"]); !reflect.DeepEqual(got, []string{`issue.state: "pending" → "closed"`}) {
		t.Errorf("s3 after the late record: %q", got)
	}
	if p["s2"].Input.Snapshot.PreviousAt != "2024-05-01T09:00:00Z" {
		t.Errorf("late s2 compared with the snapshot of %s", p["s2"].Input.Snapshot.PreviousAt)
	}
	st, err := Run(context.Background(), env, Options{})
	if err != nil || st.Units != 2 || st.Skipped != 2 {
		t.Errorf("after the late record: %+v, %v; want s2 and s3 to run again", st, err)
	}
}

// Declared facts cover a record whose changes lie in the fields they read: its unit asks the
// LLM nothing. With text fields, only records whose free text is new or changed ask, and the
// LLM sees only that text.
func TestRecordCoveredByDeclaredFactsAsksNothing(t *testing.T) {
	declared := graph.Record{FactPaths: []string{"issue.title", "issue.state", "issue.assignees.login"},
		Declared: []graph.Declaration{{Key: "k", Relation: "HAS_STATE", Kind: graph.DeclaredState,
			Pairs: []graph.DeclaredPair{{Subject: "Login fails", Object: "open", Fact: "Login fails is open"}}}}}
	text := declared
	text.TextFields = []string{"issue.body", "comment.body"}
	eps := func(rec graph.Record) []graph.Episode {
		return []graph.Episode{
			snapshot("s1", "7", 9, `{"issue":{"state":"open","title":"Login fails"}}`, rec),
			snapshot("s2", "7", 10, `{"issue":{"assignees":[{"login":"bob"}],"state":"open","title":"Login fails"}}`, rec),
			snapshot("s3", "7", 11, `{"issue":{"assignees":[{"login":"bob"}],"state":"closed","title":"Login fails"}}`, rec),
			snapshot("s4", "7", 12, `{"issue":{"assignees":[{"login":"bob"}],"state":"closed","title":"Login fails","milestone":"v2"}}`, rec),
			snapshot("s5", "7", 13, `{"comment":{"body":"Bob Smith fixed it."},"issue":{"assignees":[{"login":"bob"}],"state":"closed","title":"Login fails"}}`, rec),
		}
	}
	tests := []struct {
		name string
		rec  graph.Record
		opts Options
		ask  []string
	}{
		{"declared facts", declared, Options{}, []string{"s4", "s5"}},
		{"text fields", text, Options{}, []string{"s5"}},
		{"llm off", declared, Options{NoLLM: true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLLM{}
			env := recordEnv(t, f, eps(tt.rec)...)
			p := plans(t, env, tt.opts)
			var ask []string
			for _, k := range []string{"s1", "s2", "s3", "s4", "s5"} {
				if p[k].Ask {
					ask = append(ask, k)
				}
			}
			if !reflect.DeepEqual(ask, tt.ask) {
				t.Errorf("asked %v, want %v", ask, tt.ask)
			}
			if st, err := Run(context.Background(), env, tt.opts); err != nil || st.Units != 5 {
				t.Fatalf("Run = %+v, %v", st, err)
			}
			asked := 0
			for _, task := range f.take() {
				if task == wire.TaskExtract {
					asked++
				}
			}
			if asked != len(tt.ask) {
				t.Errorf("%d extractions asked the LLM, want %d", asked, len(tt.ask))
			}
			out := outputsByKey(t, env)
			if o := out["s3"]; len(o.Facts) != 0 || len(o.Declared) != 1 || o.Object != "7" {
				t.Errorf("s3 output %+v: want no LLM facts, its declared facts and object", o)
			}
			if st, err := Run(context.Background(), env, tt.opts); err != nil || st.Units != 0 || len(f.take()) != 0 {
				t.Errorf("re-run = %+v, %v; want nothing to do", st, err)
			}
		})
	}
	f := &fakeLLM{}
	p := plans(t, recordEnv(t, f, eps(text)...), Options{})["s5"]
	if p.Input.Episode.Content != `{"comment":{"body":"Bob Smith fixed it."}}` {
		t.Errorf("text content %s, want only the new comment", p.Input.Episode.Content)
	}
	if got := changes(p); !reflect.DeepEqual(got, []string{`issue.milestone: - "v2"`}) {
		t.Errorf("change list %q: want the other changes, not the text field's", got)
	}
	if !reflect.DeepEqual(p.Input.Known, []string{"Login fails is open"}) {
		t.Errorf("known facts %q", p.Input.Known)
	}
}

// outputsByKey reads the stored extraction of every episode of group g, by record key.
func outputsByKey(t *testing.T, env stages.Env) map[string]Output {
	t.Helper()
	eps, _ := env.Store.GroupEpisodes(context.Background(), "g")
	outs := outputs(t, env)
	m := map[string]Output{}
	for i, ep := range eps {
		m[ep.RecordKey] = outs[i]
	}
	return m
}

func TestChangeListIsBounded(t *testing.T) {
	prev, cur := "{", "{"
	for i := range MaxChanges + 5 {
		sep := ","
		if i == 0 {
			sep = ""
		}
		prev += fmt.Sprintf(`%s"k%03d":1`, sep, i)
		cur += fmt.Sprintf(`%s"k%03d":2`, sep, i)
	}
	eps := []graph.Episode{snapshot("a", "1", 1, prev+"}", graph.Record{}), snapshot("b", "1", 2, cur+"}", graph.Record{})}
	got := NewGroup(eps, Options{}).Plan(1).Input.Snapshot.Changes
	if len(got) != MaxChanges+1 || got[MaxChanges] != "… and 5 more changes" {
		t.Errorf("%d lines, last %q", len(got), got[len(got)-1])
	}
}

func TestKnownFactsAreBounded(t *testing.T) {
	d := graph.Declaration{Key: "k", Relation: "HAS_LABEL", Kind: graph.DeclaredState}
	for i := range MaxKnown + 7 {
		d.Pairs = append(d.Pairs, graph.DeclaredPair{Subject: "s", Object: fmt.Sprint(i), Fact: fmt.Sprint("s has label ", i)})
	}
	got := known(&graph.Record{Declared: []graph.Declaration{d}})
	if len(got) != MaxKnown+1 || got[MaxKnown] != "… and 7 more" {
		t.Errorf("%d known facts, last %q", len(got), got[len(got)-1])
	}
}
