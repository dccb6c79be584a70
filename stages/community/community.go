package community

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Community

// algorithm names the partitioning and summarizing method; it is part of every unit's
// fingerprint, so changing the method recomputes every group.
const algorithm = "lpa-embedded-2phase/v1"

// StageOptions of the stage.
type StageOptions struct {
	MaxIterations int  // label propagation sweeps at most (DefaultMaxIterations)
	MinSize       int  // smallest community kept (DefaultStageMinSize)
	OnlyValid     bool // count only facts that are still open (no invalid_at, no expired_at)
	MaxSummarized int  // members whose summaries are merged, by number of facts (DefaultStageMaxSummarized)
	MergeFanIn    int  // summaries merged by one call (DefaultStageMergeFanIn; 2 is Graphiti's pairwise merge)
}

// Defaults of StageOptions.
const (
	DefaultStageMinSize       = 2
	DefaultStageMaxSummarized = 16
	DefaultStageMergeFanIn    = 4
)

// WithDefaults returns the options with every zero or negative field set to its default: the
// options the stage runs with.
func (o StageOptions) WithDefaults() StageOptions {
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MinSize <= 0 {
		o.MinSize = DefaultStageMinSize
	}
	if o.MaxSummarized <= 0 {
		o.MaxSummarized = DefaultStageMaxSummarized
	}
	if o.MergeFanIn <= 0 {
		o.MergeFanIn = DefaultStageMergeFanIn
	}
	return o
}

// key is the stage's part of its unit fingerprints (stages.Key): the options, the algorithm, the
// versions of the tasks it asks and the embedder (community names are embedded).
func (o StageOptions) key(env stages.Env) (string, error) {
	return stages.Key(Stage, struct {
		Options   StageOptions
		Algorithm string
		Tasks     map[string]string
		Embedder  string
	}{o.WithDefaults(), algorithm, env.TaskVersionsOf(wire.TaskMergeSummaries, wire.TaskNameCommunity), env.EmbedderOf()})
}

// Run recomputes the communities of every group whose inputs changed: the group's graph (through
// the embed stage's fingerprint, which chains every upstream stage), the prompts, the models or
// the options. Other groups are skipped without reading their graph.
func Run(ctx context.Context, env stages.Env, opts StageOptions) (stages.Stats, error) {
	opts = opts.WithDefaults()
	key, err := opts.key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	return stages.RunGroups(ctx, env, Stage, key, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, opts, g, fp)
	})
}

// runGroup partitions one group, describes its communities and replaces the stored ones.
func runGroup(ctx context.Context, env stages.Env, opts StageOptions, group, fp string) error {
	g, err := loadGraph(ctx, env.Store, group, opts.OnlyValid)
	if err != nil {
		return err
	}
	comms := g.communities(Options{MaxIterations: opts.MaxIterations, MinSize: opts.MinSize})
	var bad stages.Degraded
	out, err := describe(ctx, env, opts, group, g, comms, &bad)
	if err != nil {
		return err
	}
	return stages.Commit(ctx, env, Stage, group, fp, &bad, func(tx *checkpoints.Tx) error {
		return tx.ReplaceCommunities(ctx, group, out)
	})
}

// describe turns the member lists of a group's communities into communities: members, id,
// created_at (the latest member's), summary, name and name embedding, sorted by uuid. Bad
// answers are absorbed by bad (see reduceAll and nameAll).
func describe(ctx context.Context, env stages.Env, opts StageOptions, group string, g *groupGraph, comms [][]int32, bad *stages.Degraded) ([]graph.Community, error) {
	if len(comms) == 0 {
		return nil, nil
	}
	picked, want := pickLeaves(comms, g.degrees(), opts.MaxSummarized)
	byNode, err := loadLeaves(ctx, env.Store, group, g, want)
	if err != nil {
		return nil, err
	}
	parts, fallback := make([][]string, len(comms)), make([]string, len(comms))
	for c, nodes := range picked {
		var names []string
		for _, u := range nodes {
			parts[c] = append(parts[c], byNode[u].text)
			names = append(names, byNode[u].name)
		}
		fallback[c] = strings.Join(names[:min(3, len(names))], ", ")
	}
	summaries, err := reduceAll(ctx, env, parts, opts.MergeFanIn, bad)
	if err != nil {
		return nil, fmt.Errorf("summarizing communities of %s: %w", group, err)
	}
	names, err := nameAll(ctx, env, summaries, fallback, bad)
	if err != nil {
		return nil, fmt.Errorf("naming communities of %s: %w", group, err)
	}
	vecs, err := env.Embedder.Embed(ctx, names)
	switch {
	case err != nil && bad.Absorb(err) == nil:
		vecs = make([][]float32, len(names)) // a bad answer: no name embeddings, and the group fails
	case err != nil:
		return nil, fmt.Errorf("embedding community names of %s: %w", group, err)
	case len(vecs) != len(names):
		return nil, fmt.Errorf("embedding community names of %s: %d vectors for %d names", group, len(vecs), len(names))
	}
	out := make([]graph.Community, len(comms))
	for c, nodes := range comms {
		members := make([]string, len(nodes)) // ids ascend with uuids: already sorted
		latest := g.created[nodes[0]]
		for i, u := range nodes {
			members[i] = g.uuids[u]
			latest = max(latest, g.created[u])
		}
		out[c] = graph.Community{UUID: graph.CommunityID(group, members), GroupID: group, Name: names[c],
			Summary: summaries[c], Members: members, CreatedAt: time.UnixMicro(latest).UTC(), NameEmbedding: vecs[c]}
	}
	slices.SortFunc(out, func(a, b graph.Community) int { return strings.Compare(a.UUID, b.UUID) })
	return out, nil
}
