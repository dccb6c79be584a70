package resolve

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
	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// fakeLLM answers resolve_entities with sameEntity over the candidates' names and dedupe_facts
// with sameFact, and records every pair it was asked about as "a | b".
type fakeLLM struct {
	mu         sync.Mutex
	calls      int
	pairs      []string
	sameEntity func(a, b wire.CandidateIn) bool
	sameFact   func(a, b wire.FactIn) bool
	bad        bool // every answer stays invalid
}

func (f *fakeLLM) Call(_ context.Context, stage, task string, input, out any) error {
	if stage != Stage {
		return fmt.Errorf("call from stage %q", stage)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.bad {
		return &wire.ValidationError{Task: task, Attempts: 3, Err: errors.New("parsing answer as JSON: unexpected EOF"), Raw: []byte(`{"same_ids":[`)}
	}
	switch in := input.(type) {
	case wire.ResolveInput:
		if task != wire.TaskResolveEntities {
			return fmt.Errorf("task %s with a ResolveInput", task)
		}
		byID := map[string]wire.CandidateIn{}
		for _, e := range in.Entities {
			byID[e.ID] = e
		}
		o := out.(*wire.ResolveOutput)
		for _, p := range in.Pairs {
			a, b := byID[p.A], byID[p.B]
			f.pairs = append(f.pairs, a.Name+" | "+b.Name)
			if f.sameEntity != nil && f.sameEntity(a, b) {
				o.Same = append(o.Same, p.ID)
			}
		}
	case wire.DedupeInput:
		byID := map[string]wire.FactIn{}
		for _, x := range in.Facts {
			byID[x.ID] = x
		}
		o := out.(*wire.DedupeOutput)
		for _, p := range in.Pairs {
			a, b := byID[p.A], byID[p.B]
			f.pairs = append(f.pairs, a.Fact+" | "+b.Fact)
			if f.sameFact != nil && f.sameFact(a, b) {
				o.Duplicates = append(o.Duplicates, p.ID)
			}
		}
	default:
		return fmt.Errorf("unexpected task %s", task)
	}
	return nil
}

// take returns the calls and pairs asked so far and forgets them.
func (f *fakeLLM) take() (int, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, p := f.calls, f.pairs
	f.calls, f.pairs = 0, nil
	return c, p
}

// TaskVersion is the version of a task: fixed, so fingerprints depend on inputs only.
func (f *fakeLLM) TaskVersion(task string) string { return "v1-" + task }

// testEnv returns an env with a temp store, the fake LLM and the offline hashing embedder.
func testEnv(t *testing.T, f *fakeLLM) stages.Env {
	t.Helper()
	store, err := checkpoints.Open(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return stages.Env{Store: store, LLM: f, Embedder: hashing.Embedder{Dims: 256}, Clock: graph.FixedClock(time.Unix(0, 0)), RecordTime: stages.RecordReference, Concurrency: 2}
}

var t0 = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

// episodes returns n message episodes of a group, an hour apart.
func episodes(group string, n int) []graph.Episode {
	out := make([]graph.Episode, n)
	for i := range out {
		out[i] = graph.Episode{UUID: graph.EpisodeID(group, fmt.Sprint(i)), GroupID: group, Source: graph.SourceMessage,
			Content: fmt.Sprint("episode ", i), ReferenceTime: t0.Add(time.Duration(i) * time.Hour), Seq: int64(i)}
	}
	return out
}

// ents builds extracted entities from "name" or "name:Type" strings.
func ents(specs ...string) []wire.EntityMention {
	var out []wire.EntityMention
	for _, s := range specs {
		name, typ, ok := strings.Cut(s, ":")
		if !ok {
			typ = "Entity"
		}
		out = append(out, wire.EntityMention{Name: name, Type: typ, Attributes: []wire.AttributeValue{}})
	}
	return out
}

// fact builds an extracted state fact valid from valid (may be empty).
func fact(src, pred, tgt, text, valid string) wire.ExtractedFact {
	f := wire.ExtractedFact{Source: src, Target: tgt, Predicate: pred, Fact: text, Kind: wire.KindState}
	if valid != "" {
		f.ValidAt = &valid
	}
	return f
}

// names returns the names of entities, in result order.
func entityNames(es []graph.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// resolve runs Resolve and fails the test on error.
func resolveT(t *testing.T, env stages.Env, opts Options, group string, eps []graph.Episode, exs []stages.Extraction, memo *Memo) Result {
	t.Helper()
	res, err := Resolve(context.Background(), env, opts, group, eps, exs, memo)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
