package community

import (
	"context"
	"fmt"
	"sort"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/embed"
)

// Stage is the name of the stage in the store and in reports.
const Stage = "community"

// StageOptions of the stage.
type StageOptions struct {
	MaxIterations int  // label propagation sweeps at most (default 100)
	MinSize       int  // smallest community kept (default 2)
	OnlyValid     bool // count only facts without invalid_at as edges
	MaxSummarized int  // members whose summaries are merged, by degree (default 16)
}

func (o *StageOptions) defaults() {
	if o.MaxIterations <= 0 {
		o.MaxIterations = 100
	}
	if o.MinSize <= 0 {
		o.MinSize = 2
	}
	if o.MaxSummarized <= 0 {
		o.MaxSummarized = 16
	}
}

// Run recomputes the communities of every group whose graph changed.
func Run(ctx context.Context, env stages.Env, opts StageOptions) (stages.Stats, error) {
	opts.defaults()
	done, err := env.Store.Fingerprints(ctx, Stage)
	if err != nil {
		return stages.Stats{}, err
	}
	upstream, err := env.Store.Fingerprints(ctx, embed.Stage)
	if err != nil {
		return stages.Stats{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	var units []stages.Unit
	for _, g := range groups {
		fp := stages.Fingerprint(upstream[g], env.Prompts.Hash(llm.TaskMergeSummaries), env.Prompts.Hash(llm.TaskNameCommunity),
			env.Model, env.Embedder.Model(), fmt.Sprint(opts))
		units = append(units, stages.Unit{Key: g, Fingerprint: fp, Run: func(ctx context.Context, fp string) error {
			return runGroup(ctx, env, opts, g, fp)
		}})
	}
	return stages.RunUnits(ctx, env, Stage, units, done)
}

func runGroup(ctx context.Context, env stages.Env, opts StageOptions, group, fp string) error {
	var ents []graph.Entity
	idx := map[string]int32{}
	if err := env.Store.EachEntity(ctx, group, func(e graph.Entity) error {
		idx[e.UUID] = int32(len(ents))
		ents = append(ents, e)
		return nil
	}); err != nil {
		return err
	}
	var edges []Edge
	if err := env.Store.EachFact(ctx, group, func(f graph.Fact) error {
		if opts.OnlyValid && f.InvalidAt != nil {
			return nil
		}
		a, okA := idx[f.SourceUUID]
		b, okB := idx[f.TargetUUID]
		if okA && okB {
			edges = append(edges, Edge{A: a, B: b, W: 1})
		}
		return nil
	}); err != nil {
		return err
	}
	labels := Propagate(len(ents), edges, Options{MaxIterations: opts.MaxIterations, MinSize: opts.MinSize})
	degree := make([]int, len(ents))
	for _, e := range edges {
		degree[e.A]++
		degree[e.B]++
	}
	var comms []graph.Community
	for _, members := range Groups(labels) {
		c, err := describe(ctx, env, opts, group, ents, members, degree)
		if err != nil {
			return err
		}
		comms = append(comms, c)
	}
	if len(comms) > 0 {
		names := make([]string, len(comms))
		for i, c := range comms {
			names[i] = c.Name
		}
		vecs, err := env.Embedder.Embed(ctx, names)
		if err != nil {
			return fmt.Errorf("embedding community names of %s: %w", group, err)
		}
		for i := range comms {
			comms[i].NameEmbedding = vecs[i]
		}
	}
	sort.Slice(comms, func(i, j int) bool { return comms[i].UUID < comms[j].UUID })
	return env.Store.CommitUnit(ctx, Stage, group, fp, func(tx *checkpoints.Tx) error {
		return tx.ReplaceCommunities(ctx, group, comms)
	})
}
