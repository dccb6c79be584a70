package community

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// fakeLLM answers merges with "(A + B)" and names with "Name of " and the summary's first word,
// and records every call.
type fakeLLM struct {
	mu    sync.Mutex
	calls []string // task: input, in no particular order
}

func (f *fakeLLM) Call(_ context.Context, stage, task string, input, out any) error {
	if stage != Stage {
		return fmt.Errorf("call from stage %q", stage)
	}
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf("%s: %v", task, input))
	f.mu.Unlock()
	switch in := input.(type) {
	case wire.MergeInput:
		out.(*wire.MergeOutput).Summary = "(" + strings.Join(in.Summaries, " + ") + ")"
	case wire.NameInput:
		first, _, _ := strings.Cut(strings.TrimLeft(in.Summary, "("), ":")
		out.(*wire.NameOutput).Name = "Name of " + first + "\nsecond line"
	default:
		return fmt.Errorf("unexpected task %s", task)
	}
	return nil
}

// take returns the recorded calls, sorted, and forgets them.
func (f *fakeLLM) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	sort.Strings(out)
	return out
}

// TaskVersion is the version of a task: fixed, so fingerprints depend on inputs only.
func (f *fakeLLM) TaskVersion(task string) string { return "v1-" + task }

// fakeEmbedder embeds a text as [its length, 1].
type fakeEmbedder struct{}

func (fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}
func (fakeEmbedder) Dimensions() int { return 2 }
func (fakeEmbedder) Model() string   { return "fake-embed" }

// testEnv opens a temp store and returns an env with the fakes.
func testEnv(t *testing.T) (stages.Env, *fakeLLM) {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	f := &fakeLLM{}
	return stages.Env{Store: store, LLM: f, Embedder: fakeEmbedder{}, Clock: graph.FixedClock(time.Unix(0, 0)), Concurrency: 3}, f
}

// fixture is a group's graph by entity name: an entity's uuid is graph.EntityID(group, name).
type fixture struct {
	group    string
	entities []string     // names; the summary of each is "about <name>"
	facts    [][2]string  // source and target names
	closed   map[int]bool // indexes of facts with invalid_at set
}

func (x fixture) id(name string) string { return graph.EntityID(x.group, name) }

// write stores the group's episode, entities and facts and an embed record with the given
// fingerprint, as the upstream stages would.
func (x fixture) write(t *testing.T, env stages.Env, upstream string) {
	t.Helper()
	ctx := context.Background()
	ep := graph.Episode{UUID: graph.EpisodeID(x.group, "e1"), GroupID: x.group, Source: graph.SourceText,
		ReferenceTime: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := env.Store.UpsertEpisodes(ctx, []graph.Episode{ep}, ep.ReferenceTime); err != nil {
		t.Fatal(err)
	}
	var ents []graph.Entity
	for i, n := range x.entities {
		ents = append(ents, graph.Entity{UUID: x.id(n), GroupID: x.group, Name: n, Summary: "about " + n,
			CreatedAt: time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC)})
	}
	var facts []graph.Fact
	for i, f := range x.facts {
		fact := graph.Fact{UUID: graph.FactID(x.group, x.id(f[0]), x.id(f[1]), "KNOWS", fmt.Sprint(i)), GroupID: x.group,
			SourceUUID: x.id(f[0]), TargetUUID: x.id(f[1]), Name: "KNOWS", Fact: f[0] + " knows " + f[1],
			Episodes: []string{ep.UUID}, CreatedAt: ep.ReferenceTime, ReferenceTime: ep.ReferenceTime}
		if x.closed[i] {
			fact.InvalidAt = graph.UTC(ep.ReferenceTime)
		}
		facts = append(facts, fact)
	}
	err := env.Store.CommitUnit(ctx, "resolve", x.group, upstream, func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, x.group, ents, nil); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, x.group, facts, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Store.CommitUnit(ctx, "embed", x.group, upstream, nil); err != nil {
		t.Fatal(err)
	}
}

// cliqueFacts returns a fact between every pair of names.
func cliqueFacts(names ...string) [][2]string {
	var out [][2]string
	for i, a := range names {
		for _, b := range names[i+1:] {
			out = append(out, [2]string{a, b})
		}
	}
	return out
}

// stored reads a group's communities.
func stored(t *testing.T, env stages.Env, group string) []graph.Community {
	t.Helper()
	var out []graph.Community
	if err := env.Store.EachCommunity(context.Background(), group, func(c graph.Community) error {
		out = append(out, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
