package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

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
	// Window above 1 extracts the messages and texts of a group in windows of consecutive
	// episodes, one wire.TaskExtractWindow call each, Window episodes per window on average and
	// at most three times that (Windows); JSON episodes keep their own units. 1 or less: one call per
	// episode (the job's default, DefaultWindow).
	Window int `json:",omitempty"`
	// WindowTokens bounds a window's content, in wire.EstimateTokens (the job's default
	// DefaultWindowTokens); 0 or less: no bound.
	WindowTokens int `json:",omitempty"`
	// WindowGap: an episode at least this much later than the one before it starts a new window
	// (the job's default DefaultWindowGap); 0: none does.
	WindowGap time.Duration `json:",omitempty"`
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
	if err := o.checkWindow(); err != nil {
		return fmt.Errorf("window: %w", err)
	}
	return nil
}

// checkWindow checks that windowed options ask one call per window: mode combined.
func (o Options) checkWindow() error {
	if m := o.WithDefaults().Mode; o.Windowed() && m != ModeCombined {
		return fmt.Errorf("%d needs mode %s (a window is one call; mode is %s)", o.Window, ModeCombined, m)
	}
	return nil
}

// key is the stage's part of its unit fingerprints (stages.Key): the options, the hygiene
// rules' version and the versions of the tasks the options ask. The window settings enter it
// only when the options are windowed, so a job extracting one episode per call keeps the
// fingerprints it had before they existed.
func (o Options) key(env stages.Env) (string, error) {
	o = o.WithDefaults()
	hygiene := HygieneVersion
	if o.Windowed() {
		hygiene += ",window-v" + windowRepairVer
	} else {
		o.Window, o.WindowTokens, o.WindowGap = 0, 0, 0
	}
	return stages.Key(Stage, struct {
		Options Options
		Hygiene string
		Tasks   map[string]string
	}{o, hygiene, env.TaskVersionsOf(o.tasks()...)})
}

// tasks are the LLM tasks the options ask: the mode's (Tasks), and wire.TaskExtractWindow when
// windowed.
func (o Options) tasks() []string {
	t := Tasks(o.Mode)
	if o.Windowed() {
		t = append(t, wire.TaskExtractWindow)
	}
	return t
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

// Run extracts every episode whose inputs changed since its last extraction: one unit per
// episode, or per window of episodes when the options are windowed (a window is done when each
// of its episodes has the window's fingerprint on record).
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
			err = eachUnit(ctx, env.Store, opts, key, g, func(u unit) error {
				return emit(stages.Unit{Key: u.eps[0].UUID, Group: g, Fingerprint: u.fp, Stored: u.stored(done),
					Size: len(u.eps), Run: u.run(env, opts)})
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// unit is one extraction unit: an episode, or a window of episodes (Options.Window).
type unit struct {
	eps   []graph.Episode   // the episodes whose outputs and records it commits, in group order
	plans []Plan            // each episode's plan as it would run alone (a window's hygiene reads their inputs)
	win   *wire.WindowInput // the window's call; nil for an episode alone
	ask   bool              // whether the unit asks the LLM
	fp    string            // the fingerprint of every episode of the unit
}

// stored is the fingerprint on record of the unit: that of its episodes when they all have the
// same, else "" (never the unit's own: some episode still needs it).
func (u unit) stored(done map[string]string) string {
	fp := done[u.eps[0].UUID]
	for _, ep := range u.eps[1:] {
		if done[ep.UUID] != fp {
			return ""
		}
	}
	return fp
}

// run is the unit's Run: runUnit for an episode alone, runWindow for a window.
func (u unit) run(env stages.Env, opts Options) func(context.Context, string) error {
	if u.win == nil {
		return runUnit(env, opts.Mode, u.eps[0], u.plans[0], opts)
	}
	return runWindow(env, u, opts)
}

// windowUnitInput is everything a window's outputs depend on besides the key: its call's input,
// whether it asks, why each episode would not ask alone (the output of a window that does not
// ask), and its episodes' ids (the units its outputs are stored under).
type windowUnitInput struct {
	Input    wire.WindowInput `json:"input"`
	Ask      bool             `json:"ask"`
	Skip     []string         `json:"skip"`
	Episodes []string         `json:"episodes"`
}

// eachUnit calls fn with each unit of a group, in group order of its first episode, with its
// fingerprint: the key and everything the unit's outputs depend on besides (unitInput, or
// windowUnitInput). Run and Estimate share it. JSON episodes are always units of their own; so
// is every episode when the options are not windowed. A window asks when one of its episodes
// would ask alone (not chit-chat, and the LLM is on).
func eachUnit(ctx context.Context, store *checkpoints.Store, opts Options, key, group string, fn func(unit) error) error {
	eps, err := store.GroupEpisodes(ctx, group)
	if err != nil {
		return err
	}
	g := NewGroup(eps, opts)
	var wins [][]int
	if opts.Windowed() {
		wins = Windows(eps, opts)
	}
	next := 0 // the next window
	for i, ep := range eps {
		if opts.Windowed() && windowed(ep) {
			if next == len(wins) || wins[next][0] != i {
				continue // inside a window already emitted
			}
			u, err := windowUnit(eps, wins[next], g, opts, key)
			if err != nil {
				return err
			}
			next++
			if err := fn(u); err != nil {
				return err
			}
			continue
		}
		p := g.Plan(i)
		raw, err := json.Marshal(unitInput{Input: p.Input, Ask: p.Ask, Skip: p.Skip, Record: ep.Record})
		if err != nil {
			return fmt.Errorf("encoding input of %s: %w", ep.UUID, err)
		}
		if err := fn(unit{eps: []graph.Episode{ep}, plans: []Plan{p}, ask: p.Ask, fp: stages.Fingerprint(key, string(raw))}); err != nil {
			return err
		}
	}
	return nil
}

// windowUnit builds the unit of the window of episodes eps[idx…].
func windowUnit(eps []graph.Episode, idx []int, g *Group, opts Options, key string) (unit, error) {
	u := unit{}
	in := windowUnitInput{Skip: make([]string, len(idx)), Episodes: make([]string, len(idx))}
	for k, i := range idx {
		p := g.Plan(i)
		u.eps, u.plans = append(u.eps, eps[i]), append(u.plans, p)
		u.ask = u.ask || p.Ask
		in.Skip[k], in.Episodes[k] = p.Skip, eps[i].UUID
	}
	win := windowInput(eps, idx, u.plans[0].Input, opts)
	u.win, in.Input, in.Ask = &win, win, u.ask
	raw, err := json.Marshal(in)
	if err != nil {
		return u, fmt.Errorf("encoding input of window %s: %w", eps[idx[0]].UUID, err)
	}
	u.fp = stages.Fingerprint(key, string(raw))
	return u, nil
}
