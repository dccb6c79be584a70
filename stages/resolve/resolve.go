package resolve

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Resolve

// Run resolves every group whose extractions, options, model, prompts or embedder changed.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	opts = opts.WithDefaults()
	key, err := opts.key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	done, err := env.Store.Fingerprints(ctx, Stage)
	if err != nil {
		return stages.Stats{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	// Units are built a group at a time: one group's episodes and records per unit in flight.
	return stages.RunStream(ctx, env, Stage, len(groups), func(emit func(stages.Unit) error) error {
		for _, g := range groups {
			eps, err := env.Store.GroupEpisodes(ctx, g)
			if err != nil {
				return err
			}
			upstream, err := env.Store.EpisodeFingerprints(ctx, stages.Extract, g)
			if err != nil {
				return err
			}
			fp, err := groupFingerprint(env, key, eps, upstream)
			if err != nil {
				return fmt.Errorf("resolving group %s: %w", g, err)
			}
			err = emit(stages.Unit{Key: g, Group: g, Fingerprint: fp, Stored: done[g],
				Run: func(ctx context.Context, fp string) error { return runGroup(ctx, env, opts, g, eps, fp) }})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// groupFingerprint is a group unit's fingerprint: the key, then each episode's id, the
// fingerprint of its extraction (upstream, by episode) and its record time. Run and Estimate
// share it.
func groupFingerprint(env stages.Env, key string, eps []graph.Episode, upstream map[string]string) (string, error) {
	parts := []string{key}
	for _, ep := range eps {
		f, ok := upstream[ep.UUID]
		if !ok {
			return "", fmt.Errorf("episode %s has no extraction", ep.UUID)
		}
		parts = append(parts, ep.UUID, f, env.RecordTimeOf(ep).String())
	}
	return stages.Fingerprint(parts...), nil
}

// runGroup resolves one group and commits its entities, mentions, facts and memo together.
func runGroup(ctx context.Context, env stages.Env, opts Options, group string, eps []graph.Episode, fp string) error {
	outs, err := env.Store.GroupOutputs(ctx, stages.Extract, group)
	if err != nil {
		return err
	}
	exs := make([]stages.Extraction, len(eps))
	for i, ep := range eps {
		if err := json.Unmarshal(outs[ep.UUID], &exs[i]); err != nil {
			return fmt.Errorf("decoding extraction of %s: %w", ep.UUID, err)
		}
	}
	memo, err := loadMemo(ctx, env.Store, group)
	if err != nil {
		return err
	}
	res, err := Resolve(ctx, env, opts, group, eps, exs, memo)
	if err != nil {
		return fmt.Errorf("resolving group %s: %w", group, err)
	}
	logger(env).Debug("resolved group", "group", group, "names", res.Stats.Names, "entities", res.Stats.Entities,
		"entity_pairs", res.Stats.EntityPairs, "entity_pairs_asked", res.Stats.EntityAsked,
		"fact_pairs", res.Stats.FactPairs, "fact_pairs_asked", res.Stats.FactAsked, "llm_calls", res.Stats.Calls)
	body, err := json.Marshal(res.Facts)
	if err != nil {
		return fmt.Errorf("encoding facts: %w", err)
	}
	return stages.Commit(ctx, env, Stage, group, fp, res.Bad, func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, group, res.Entities, res.Mentions); err != nil {
			return err
		}
		if err := putMemo(ctx, tx, group, res.Memo); err != nil {
			return err
		}
		return tx.PutOutput(ctx, Stage, group, group, body)
	})
}

// logger is the env's logger, or the default one.
func logger(env stages.Env) *slog.Logger {
	if env.Log != nil {
		return env.Log
	}
	return slog.Default()
}
