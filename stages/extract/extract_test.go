package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// fakeLLM lists the capitalised words of an episode as entities (the first one a Person with an
// "age" attribute, "Basic" a Plan) and links the first entity to each other one.
type fakeLLM struct {
	mu    sync.Mutex
	tasks []string
}

func (f *fakeLLM) Call(_ context.Context, stage, task string, input, out any) error {
	if stage != Stage {
		return fmt.Errorf("call from stage %q", stage)
	}
	f.mu.Lock()
	f.tasks = append(f.tasks, task)
	f.mu.Unlock()
	words := func(ep wire.EpisodeIn) []wire.EntityMention {
		var out []wire.EntityMention
		for _, w := range strings.Fields(ep.Content) {
			w = strings.Trim(w, ".,")
			switch {
			case w == "Basic":
				out = append(out, wire.EntityMention{Name: w, Type: "Plan"})
			case len(out) == 0 && w != "" && w[0] >= 'A' && w[0] <= 'Z':
				out = append(out, wire.EntityMention{Name: w, Type: "Person", Attributes: []wire.AttributeValue{{Name: "age", Value: "30"}}})
			case w != "" && w[0] >= 'A' && w[0] <= 'Z':
				out = append(out, wire.EntityMention{Name: w, Type: "Entity"})
			}
		}
		return out
	}
	link := func(es []string) []wire.ExtractedFact {
		var fs []wire.ExtractedFact
		for _, e := range es[1:] {
			fs = append(fs, wire.ExtractedFact{Source: es[0], Target: e, Predicate: "KNOWS", Fact: es[0] + " knows " + e + ".", Kind: wire.KindState})
		}
		return fs
	}
	switch task {
	case wire.TaskExtractEntities:
		out.(*wire.EntitiesOutput).Entities = words(input.(wire.ExtractInput).Episode)
	case wire.TaskExtractFacts:
		var names []string
		for _, e := range input.(wire.FactsInput).Entities {
			names = append(names, e.Name)
		}
		out.(*wire.FactsOutput).Facts = link(names)
	case wire.TaskExtract:
		var names []string
		o := out.(*wire.ExtractOutput)
		for _, e := range words(input.(wire.ExtractInput).Episode) {
			names = append(names, e.Name)
			o.Entities = append(o.Entities, e)
		}
		if len(names) > 1 {
			o.Facts = link(names)
		}
	default:
		return fmt.Errorf("unexpected task %s", task)
	}
	return nil
}

func (f *fakeLLM) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tasks
	f.tasks = nil
	return t
}

// TaskVersion is the version of a task: fixed, so fingerprints depend on inputs only.
func (f *fakeLLM) TaskVersion(task string) string { return "v1-" + task }

func testEnv(t *testing.T, f *fakeLLM, contents ...string) stages.Env {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var eps []graph.Episode
	for i, c := range contents {
		ref := time.Date(2024, 1, 1, i, 0, 0, 0, time.UTC)
		eps = append(eps, graph.Episode{UUID: graph.EpisodeID("g", fmt.Sprint(i)), GroupID: "g", Source: graph.SourceText, Content: c, ReferenceTime: ref, Seq: int64(i)})
	}
	if _, err := store.UpsertEpisodes(ctx, eps, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	return stages.Env{Store: store, LLM: f, Concurrency: 2}
}

// outputs reads the stored outputs in episode order.
func outputs(t *testing.T, env stages.Env) []Output {
	t.Helper()
	ctx := context.Background()
	eps, _ := env.Store.GroupEpisodes(ctx, "g")
	raw, err := env.Store.GroupOutputs(ctx, Stage, "g")
	if err != nil {
		t.Fatal(err)
	}
	var out []Output
	for _, ep := range eps {
		var o Output
		if err := json.Unmarshal(raw[ep.UUID], &o); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

func TestRunModes(t *testing.T) {
	contents := []string{"Alice met Bob.", "Alice rested.", "Carol has the Basic plan."}
	tests := []struct {
		name      string
		opts      Options
		wantTasks int
		wantFacts []int
		wantAttrs bool
	}{
		{"two calls, the second skipped below two entities", Options{Mode: ModeTwoCall}, 2 + 1 + 1, []int{1, 0, 0}, true},
		{"two calls with Plan kept", Options{Mode: ModeTwoCall, ExcludedTypes: []string{"Organization"}}, 2 + 1 + 2, []int{1, 0, 1}, true},
		{"combined (the default)", Options{ExcludedTypes: []string{"PLAN"}}, 3, []int{1, 0, 0}, true},
		{"combined with Plan kept", Options{Mode: ModeCombined, ExcludedTypes: []string{"Organization"}}, 3, []int{1, 0, 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLLM{}
			env := testEnv(t, f, contents...)
			if tt.opts.ExcludedTypes == nil {
				tt.opts.ExcludedTypes = []string{"plan"}
			}
			st, err := Run(context.Background(), env, tt.opts)
			if err != nil || st.Units != 3 {
				t.Fatalf("Run = %+v, %v", st, err)
			}
			if got := f.take(); len(got) != tt.wantTasks {
				t.Errorf("tasks %q, want %d calls", got, tt.wantTasks)
			}
			outs := outputs(t, env)
			for i, o := range outs {
				if len(o.Facts) != tt.wantFacts[i] {
					t.Errorf("episode %d: facts %+v, want %d", i, o.Facts, tt.wantFacts[i])
				}
				for _, e := range o.Entities {
					if e.Attributes == nil {
						t.Errorf("episode %d: nil attributes of %s", i, e.Name)
					}
					if isExcluded(e.Type, tt.opts.ExcludedTypes) {
						t.Errorf("episode %d: excluded entity %+v kept", i, e)
					}
				}
			}
			if got := len(outs[0].Entities[0].Attributes) > 0; got != tt.wantAttrs {
				t.Errorf("attributes kept = %v, want %v", got, tt.wantAttrs)
			}
			st, err = Run(context.Background(), env, tt.opts)
			if err != nil || st.Units != 0 || st.Skipped != 3 || len(f.take()) != 0 {
				t.Errorf("re-run = %+v, %v", st, err)
			}
		})
	}
}

func TestModeChangeReruns(t *testing.T) {
	f := &fakeLLM{}
	env := testEnv(t, f, "Alice met Bob.")
	if _, err := Run(context.Background(), env, Options{Mode: ModeTwoCall}); err != nil {
		t.Fatal(err)
	}
	st, err := Run(context.Background(), env, Options{})
	if err != nil || st.Units != 1 {
		t.Fatalf("after a mode change: %+v, %v", st, err)
	}
	if got := f.take(); !reflect.DeepEqual(got, []string{wire.TaskExtractEntities, wire.TaskExtractFacts, wire.TaskExtract}) {
		t.Errorf("tasks %q", got)
	}
	if _, err := Run(context.Background(), env, Options{Mode: "three_calls"}); err == nil {
		t.Error("unknown mode accepted")
	}
}
