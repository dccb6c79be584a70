package resolve

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/extract"
)

// Stage is the name of the stage in the store and in reports.
const Stage = "resolve"

// Options of the stage.
type Options struct {
	MinHashThreshold float64 // Jaccard threshold of the fuzzy pass (default 0.9; ≥ 1 disables it)
}

// Run resolves every group whose extractions changed.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	if opts.MinHashThreshold == 0 {
		opts.MinHashThreshold = 0.9
	}
	done, err := env.Store.Fingerprints(ctx, Stage)
	if err != nil {
		return stages.Stats{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	// Units are built a group at a time: one group's episodes and records in memory per unit in flight.
	return stages.RunStream(ctx, env, Stage, len(groups), func(emit func(stages.Unit) error) error {
		for _, g := range groups {
			eps, err := env.Store.GroupEpisodes(ctx, g)
			if err != nil {
				return err
			}
			upstream, err := env.Store.EpisodeFingerprints(ctx, extract.Stage, g)
			if err != nil {
				return err
			}
			parts := []string{fmt.Sprint(opts.MinHashThreshold), env.RecordTime}
			for _, ep := range eps {
				f, ok := upstream[ep.UUID]
				if !ok {
					return fmt.Errorf("resolving group %s: episode %s has no extraction", g, ep.UUID)
				}
				parts = append(parts, ep.UUID, f, env.RecordTimeOf(ep).String())
			}
			err = emit(stages.Unit{Key: g, Fingerprint: stages.Fingerprint(parts...), Stored: done[g],
				Run: func(ctx context.Context, fp string) error { return runGroup(ctx, env, opts, g, eps, fp) }})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func runGroup(ctx context.Context, env stages.Env, opts Options, group string, eps []graph.Episode, fp string) error {
	outs, err := env.Store.GroupOutputs(ctx, extract.Stage, group)
	if err != nil {
		return err
	}
	exs := make([]llm.ExtractOutput, len(eps))
	for i, ep := range eps {
		if err := json.Unmarshal(outs[ep.UUID], &exs[i]); err != nil {
			return fmt.Errorf("decoding extraction of %s: %w", ep.UUID, err)
		}
	}
	res := Resolve(env, opts, group, eps, exs)
	body, err := json.Marshal(res.Facts)
	if err != nil {
		return fmt.Errorf("encoding facts: %w", err)
	}
	return env.Store.CommitUnit(ctx, Stage, group, fp, func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, group, res.Entities, res.Mentions); err != nil {
			return err
		}
		return tx.PutOutput(ctx, Stage, group, group, body)
	})
}

// sortedKeys returns the keys of a set, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
