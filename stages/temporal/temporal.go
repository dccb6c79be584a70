package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Temporal

// Options of the stage.
type Options struct {
	MaxCandidates int // most recent candidates shown per list (DefaultMaxCandidates)
	// Cardinality overrides the shipped cardinality of relations by predicate (one | many; see
	// Cardinalities): the job's edge_types[].cardinality.
	Cardinality map[string]string
}

// WithDefaults returns the options with MaxCandidates set to DefaultMaxCandidates when it is
// not positive: the options the stage runs with.
func (o Options) WithDefaults() Options {
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	return o
}

// key is the stage's part of its unit fingerprints (stages.Key): the candidates shown, the
// relations of cardinality one (the shipped ones and the job's), the rules' version and the
// version of the judge's task.
func (o Options) key(env stages.Env) (string, error) {
	return stages.Key(Stage, struct {
		MaxCandidates  int
		CardinalityOne []string
		Rules          string
		Tasks          map[string]string
	}{o.WithDefaults().MaxCandidates, cardinalityOne(Cardinalities(o.Cardinality)), RulesVersion, env.TaskVersionsOf(wire.TaskJudgeFact)})
}

// Run applies the temporal rules to every group whose resolution changed.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	opts = opts.WithDefaults()
	key, err := opts.key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	card := Cardinalities(opts.Cardinality)
	return stages.RunGroups(ctx, env, Stage, key, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, opts.MaxCandidates, card, g, fp)
	})
}

func runGroup(ctx context.Context, env stages.Env, maxCandidates int, card map[string]string, group, fp string) error {
	body, ok, err := env.Store.Output(ctx, stages.Resolve, group)
	if err != nil {
		return fmt.Errorf("reading resolution of %s: %w", group, err)
	}
	if !ok {
		return fmt.Errorf("group %s has no resolution", group)
	}
	var facts []stages.ResolvedFact
	if err := json.Unmarshal(body, &facts); err != nil {
		return fmt.Errorf("decoding resolution of %s: %w", group, err)
	}
	names := map[string]string{}
	if err := env.Store.EachEntity(ctx, group, func(e graph.Entity) error { names[e.UUID] = e.Name; return nil }); err != nil {
		return fmt.Errorf("reading entities of %s: %w", group, err)
	}
	rules := NewRules(card, names)
	// Group order: the creating episode's position, as resolution numbers it.
	sort.SliceStable(facts, func(a, b int) bool { return facts[a].Order < facts[b].Order })
	for i := range facts {
		facts[i] = rules.Ended(rules.Normalize(facts[i]))
	}
	cands := FindCandidates(facts, maxCandidates, rules)
	judgements := make([]Judgement, len(facts))
	rejected := make([]map[string]int, len(facts))
	var counts Counts
	var bad stages.Degraded
	p := stages.NewPool(ctx, env.Concurrency)
	for i := range facts {
		c := cands[i]
		judgements[i].Contradictions = c.Settled // whatever the judge says, or whether it answers
		counts.ByCardinality += len(c.Settled)
		if c.Saved() {
			counts.JudgeCallsSaved++
		}
		if !c.Judge() {
			continue
		}
		counts.Judged++
		p.Go(func(ctx context.Context) error {
			var out wire.JudgeOutput
			if err := env.LLM.Call(ctx, Stage, wire.TaskJudgeFact, JudgeInput(facts, i, c), &out); err != nil {
				// A bad answer judges nothing: no duplicate, no contradiction beyond the settled.
				return bad.Absorb(fmt.Errorf("judging fact %s: %w", facts[i].UUID, err))
			}
			judgements[i], rejected[i] = rules.Decode(facts, i, c, out)
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return err
	}
	for i, j := range judgements {
		counts.JudgedApplied += len(j.Contradictions) - len(cands[i].Settled)
		counts.Add(Counts{ClosuresRejected: rejected[i]})
	}
	counts.JudgementsFailed = bad.Calls()
	out, versions := Apply(group, facts, judgements)
	stats, err := json.Marshal(counts)
	if err != nil {
		return fmt.Errorf("encoding the temporal counts of %s: %w", group, err)
	}
	return stages.Commit(ctx, env, Stage, group, fp, &bad, func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceFacts(ctx, group, out, versions); err != nil {
			return err
		}
		return tx.PutOutput(ctx, Stage, group, group, stats)
	})
}
