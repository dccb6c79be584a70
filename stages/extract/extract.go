package extract

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Extract

// Extraction modes.
const (
	ModeCombined = "combined" // one extract_graph call per episode (the default)
	ModeTwoCall  = "two_call" // entities, then facts: two calls per episode
)

// Options of the stage.
type Options struct {
	Context int // previous episodes of the group shown as context, at most (the job's default 4)
	// ContextTokens bounds the previous episodes' content, in wire.EstimateTokens (the job's
	// default 120); 0 or less: no bound.
	ContextTokens int
	Mode          string // ModeCombined (default when empty) or ModeTwoCall
	// AskChitchat asks the LLM about chit-chat messages too (IsChitchat); by default they are
	// not asked and give their speaker only.
	AskChitchat   bool
	EntityTypes   []wire.EntityTypeIn
	EdgeTypes     []wire.EdgeTypeIn
	ExcludedTypes []string // entity types never extracted
	NoLLM         bool     // ask the LLM nothing: records give their declared facts only
	// Counts, when not nil, counts this run's units by how they were planned: Asked, or the
	// reason the LLM was not asked (Plan.Skip).
	Counts *stages.Tally
}

// Asked is the Counts kind of the units that asked the LLM.
const Asked = "asked"

// mode returns the effective mode.
func (o Options) mode() string {
	if o.Mode == "" {
		return DefaultMode
	}
	return o.Mode
}

// Tasks returns the LLM tasks a mode calls, in call order.
func Tasks(mode string) []string {
	if mode == ModeCombined {
		return []string{wire.TaskExtract}
	}
	return []string{wire.TaskExtractEntities, wire.TaskExtractFacts}
}

// unitInput is everything an extraction unit's output depends on besides the mode, the
// ontology and the task versions: the LLM input, whether the LLM is asked, and the record (its
// object and declared facts, copied to the output).
type unitInput struct {
	Input  wire.ExtractInput `json:"input"`
	Ask    bool              `json:"ask"`
	Skip   string            `json:"skip,omitempty"`
	Record *graph.Record     `json:"record,omitempty"`
}

// Run extracts every episode whose inputs changed since its last extraction.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	mode := opts.mode()
	if mode != ModeTwoCall && mode != ModeCombined {
		return stages.Stats{}, fmt.Errorf("extracting: unknown mode %q (want %s or %s)", mode, ModeTwoCall, ModeCombined)
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	total, err := env.Store.CountEpisodes(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	ontology, err := json.Marshal([]any{opts.EntityTypes, opts.EdgeTypes, opts.ExcludedTypes})
	if err != nil {
		return stages.Stats{}, fmt.Errorf("encoding ontology: %w", err)
	}
	base := append([]string{mode, string(ontology), HygieneVersion}, env.TaskVersions(Tasks(mode)...)...)
	// Units are built a group at a time, so memory is bounded by the largest group, not the input.
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
			group := NewGroup(eps, opts)
			for i, ep := range eps {
				p := group.Plan(i)
				raw, err := json.Marshal(unitInput{Input: p.Input, Ask: p.Ask, Skip: p.Skip, Record: ep.Record})
				if err != nil {
					return fmt.Errorf("encoding input of %s: %w", ep.UUID, err)
				}
				err = emit(stages.Unit{Key: ep.UUID, Group: g, Fingerprint: stages.Fingerprint(append(base, string(raw))...),
					Stored: done[ep.UUID], Run: runUnit(env, mode, ep, p, opts)})
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}
