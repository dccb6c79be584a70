package summarize

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Summarize

// Options of the stage.
type Options struct {
	ShortChars int // joined facts up to this length are the summary themselves (DefaultShortChars)
	BatchSize  int // entities per LLM call (DefaultBatchSize)
	MaxFacts   int // most recent facts shown per entity (DefaultMaxFacts)
}

// Defaults of Options.
const (
	DefaultShortChars = 300
	DefaultBatchSize  = 8
	DefaultMaxFacts   = 30
)

// WithDefaults returns the options with every zero or negative field set to its default: the
// options the stage runs with.
func (o Options) WithDefaults() Options {
	if o.ShortChars <= 0 {
		o.ShortChars = DefaultShortChars
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.MaxFacts <= 0 {
		o.MaxFacts = DefaultMaxFacts
	}
	return o
}

// key is the stage's part of its unit fingerprints (stages.Key): the options and the version of
// the summarize task.
func (o Options) key(env stages.Env) (string, error) {
	return stages.Key(Stage, struct {
		Options Options
		Tasks   map[string]string
	}{o.WithDefaults(), env.TaskVersionsOf(wire.TaskSummarize)})
}

// Run summarizes the entities of every group whose facts changed.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	opts = opts.WithDefaults()
	key, err := opts.key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	return stages.RunGroups(ctx, env, Stage, key, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, opts, g, fp)
	})
}

func runGroup(ctx context.Context, env stages.Env, opts Options, group, fp string) error {
	var ents []graph.Entity
	if err := env.Store.EachEntity(ctx, group, func(e graph.Entity) error { ents = append(ents, e); return nil }); err != nil {
		return err
	}
	facts := map[string][]graph.Fact{}
	if err := env.Store.EachFact(ctx, group, func(f graph.Fact) error {
		facts[f.SourceUUID] = append(facts[f.SourceUUID], f)
		facts[f.TargetUUID] = append(facts[f.TargetUUID], f)
		return nil
	}); err != nil {
		return err
	}
	summaries := map[string]string{}
	var long []wire.EntityFactsIn
	for _, e := range ents {
		lines := factLines(facts[e.UUID], opts.MaxFacts)
		joined := strings.Join(lines, " ")
		if len(joined) <= opts.ShortChars {
			summaries[e.UUID] = joined
			continue
		}
		long = append(long, wire.EntityFactsIn{ID: e.UUID, Name: e.Name, Facts: lines})
	}
	var batches [][]wire.EntityFactsIn
	for i := 0; i < len(long); i += opts.BatchSize {
		batches = append(batches, long[i:min(i+opts.BatchSize, len(long))])
	}
	results := make([]wire.SummarizeOutput, len(batches))
	failed := make([]bool, len(batches))
	var bad stages.Degraded
	p := stages.NewPool(ctx, env.Concurrency)
	for i, b := range batches {
		p.Go(func(ctx context.Context) error {
			if err := env.LLM.Call(ctx, Stage, wire.TaskSummarize, wire.SummarizeInput{Entities: b}, &results[i]); err != nil {
				failed[i] = true
				return bad.Absorb(err)
			}
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return fmt.Errorf("summarizing group %s: %w", group, err)
	}
	for i, b := range batches {
		if failed[i] { // a bad answer leaves the batch's entities with their joined facts
			for _, e := range b {
				summaries[e.ID] = strings.Join(e.Facts, " ")
			}
		}
	}
	for i, r := range results {
		asked := map[string]bool{}
		for _, e := range batches[i] {
			asked[e.ID] = true
		}
		for _, s := range r.Summaries {
			if asked[s.ID] {
				summaries[s.ID] = strings.TrimSpace(s.Summary)
			}
		}
	}
	return stages.Commit(ctx, env, Stage, group, fp, &bad, func(tx *checkpoints.Tx) error {
		for _, e := range ents {
			if err := tx.SetSummary(ctx, e.UUID, summaries[e.UUID], e.Attributes); err != nil {
				return err
			}
		}
		return nil
	})
}

// factLines are an entity's fact sentences, oldest first (by valid_at, then reference time), the
// most recent max of them.
func factLines(fs []graph.Fact, max int) []string {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i].ReferenceTime, fs[j].ReferenceTime
		if fs[i].ValidAt != nil {
			a = *fs[i].ValidAt
		}
		if fs[j].ValidAt != nil {
			b = *fs[j].ValidAt
		}
		if !a.Equal(b) {
			return a.Before(b)
		}
		return fs[i].UUID < fs[j].UUID
	})
	if len(fs) > max {
		fs = fs[len(fs)-max:]
	}
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Fact
	}
	return out
}
