package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = "extract"

// Options of the stage.
type Options struct {
	Context     int // previous episodes of the group shown as context (default 4)
	EntityTypes []llm.EntityTypeIn
	EdgeTypes   []llm.EdgeTypeIn
}

// Run extracts every episode whose inputs changed since its last extraction. Units are built a
// group at a time, so memory is bounded by the largest group, not the input.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	total, err := env.Store.CountEpisodes(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	ontology, err := json.Marshal([]any{opts.EntityTypes, opts.EdgeTypes})
	if err != nil {
		return stages.Stats{}, fmt.Errorf("encoding ontology: %w", err)
	}
	base := []string{env.Prompts.Hash(llm.TaskExtract), env.Model, string(ontology)}
	return stages.RunStream(ctx, env, Stage, total, func(emit func(stages.Unit) error) error {
		for _, g := range groups {
			eps, err := env.Store.GroupEpisodes(ctx, g)
			if err != nil {
				return err
			}
			done, err := env.Store.EpisodeFingerprints(ctx, Stage, g)
			if err != nil {
				return err
			}
			for i, ep := range eps {
				in := Input(eps, i, opts)
				raw, err := json.Marshal(in)
				if err != nil {
					return fmt.Errorf("encoding input of %s: %w", ep.UUID, err)
				}
				err = emit(stages.Unit{Key: ep.UUID, Fingerprint: stages.Fingerprint(append(base, string(raw))...),
					Stored: done[ep.UUID], Run: runUnit(env, ep, in)})
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func runUnit(env stages.Env, ep graph.Episode, in llm.ExtractInput) func(context.Context, string) error {
	return func(ctx context.Context, fp string) error {
		var out llm.ExtractOutput
		if err := env.LLM.Call(ctx, Stage, llm.TaskExtract, in, &out); err != nil {
			return err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encoding extraction: %w", err)
		}
		return env.Store.CommitUnit(ctx, Stage, ep.UUID, fp, func(tx *checkpoints.Tx) error {
			return tx.PutOutput(ctx, Stage, ep.UUID, ep.GroupID, body)
		})
	}
}

// Input builds the extraction input of eps[i] with up to opts.Context previous episodes.
func Input(eps []graph.Episode, i int, opts Options) llm.ExtractInput {
	n := opts.Context
	if n < 0 {
		n = 0
	}
	from := max(0, i-n)
	in := llm.ExtractInput{Episode: episodeIn(eps[i]), Previous: []llm.EpisodeIn{},
		EntityTypes: opts.EntityTypes, EdgeTypes: opts.EdgeTypes}
	for _, p := range eps[from:i] {
		in.Previous = append(in.Previous, episodeIn(p))
	}
	return in
}

func episodeIn(e graph.Episode) llm.EpisodeIn {
	return llm.EpisodeIn{ReferenceTime: e.ReferenceTime.UTC().Format(time.RFC3339), Source: e.Source,
		Speaker: e.Speaker, Content: e.Content}
}
