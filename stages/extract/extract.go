package extract

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Extract

// Extraction modes.
const (
	ModeCombined = "combined" // one extract_graph call per episode (the default)
	ModeTwoCall  = "two_call" // entities, then facts: two calls per episode
)

// Options of the stage. Every field but Counts is a setting: it enters the unit fingerprints
// (Key).
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
	// Counts, when not nil, counts the units this run committed by how they were planned:
	// Asked, or the reason the LLM was not asked (Plan.Skip).
	Counts *stages.Tally `json:"-"`
}

// WithDefaults returns the options with an empty Mode set to DefaultMode: the options the stage
// runs with. (Context and ContextTokens of 0 mean none; the job's defaults are DefaultContext
// and DefaultContextTokens.)
func (o Options) WithDefaults() Options {
	if o.Mode == "" {
		o.Mode = DefaultMode
	}
	return o
}

// Validate checks the options; an error names the option as the job spells it
// (stages.extract.<option>).
func (o Options) Validate() error {
	if m := o.WithDefaults().Mode; m != ModeTwoCall && m != ModeCombined {
		return fmt.Errorf("mode: %q is not %s or %s", m, ModeCombined, ModeTwoCall)
	}
	return nil
}

// key is the stage's part of its unit fingerprints (stages.Key): the options, the hygiene
// rules' version and the versions of the tasks the mode asks.
func (o Options) key(env stages.Env) (string, error) {
	o = o.WithDefaults()
	return stages.Key(Stage, struct {
		Options Options
		Hygiene string
		Tasks   map[string]string
	}{o, HygieneVersion, env.TaskVersionsOf(Tasks(o.Mode)...)})
}

// Asked is the Counts kind of the units that asked the LLM (the report's ExtractAsked).
const Asked = report.ExtractAsked

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
	opts = opts.WithDefaults()
	if err := opts.Validate(); err != nil {
		return stages.Stats{}, fmt.Errorf("extracting: %w", err)
	}
	key, err := opts.key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	total, err := env.Store.CountEpisodes(ctx)
	if err != nil {
		return stages.Stats{}, err
	}
	// Units are built a group at a time, so memory is bounded by the largest group, not the input.
	return stages.RunStream(ctx, env, Stage, total, func(emit func(stages.Unit) error) error {
		for _, g := range groups {
			done, err := env.Store.EpisodeFingerprints(ctx, Stage, g)
			if err != nil {
				return err
			}
			err = eachUnit(ctx, env.Store, opts, key, g, func(ep graph.Episode, p Plan, fp string) error {
				return emit(stages.Unit{Key: ep.UUID, Group: g, Fingerprint: fp, Stored: done[ep.UUID], Run: runUnit(env, opts.Mode, ep, p, opts)})
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// eachUnit calls fn with each episode of a group, its plan and its unit fingerprint: the key
// and everything the unit's output depends on besides (unitInput). Run and Estimate share it.
func eachUnit(ctx context.Context, store *checkpoints.Store, opts Options, key, group string, fn func(graph.Episode, Plan, string) error) error {
	eps, err := store.GroupEpisodes(ctx, group)
	if err != nil {
		return err
	}
	g := NewGroup(eps, opts)
	for i, ep := range eps {
		p := g.Plan(i)
		raw, err := json.Marshal(unitInput{Input: p.Input, Ask: p.Ask, Skip: p.Skip, Record: ep.Record})
		if err != nil {
			return fmt.Errorf("encoding input of %s: %w", ep.UUID, err)
		}
		if err := fn(ep, p, stages.Fingerprint(key, string(raw))); err != nil {
			return err
		}
	}
	return nil
}
