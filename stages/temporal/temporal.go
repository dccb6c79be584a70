package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/resolve"
)

// Stage is the name of the stage in the store and in reports.
const Stage = "temporal"

// Options of the stage.
type Options struct {
	MaxCandidates int // most recent candidates shown per list (default 20)
}

// Run applies the temporal rules to every group whose resolution changed.
func Run(ctx context.Context, env stages.Env, opts Options) (stages.Stats, error) {
	if opts.MaxCandidates <= 0 {
		opts.MaxCandidates = 20
	}
	parts := append(env.TaskVersions(llm.TaskJudgeFact), fmt.Sprint(opts.MaxCandidates), RulesVersion)
	return stages.RunGroups(ctx, env, Stage, resolve.Stage, parts, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, opts, g, fp)
	})
}

func runGroup(ctx context.Context, env stages.Env, opts Options, group, fp string) error {
	body, ok, err := env.Store.Output(ctx, resolve.Stage, group)
	if err != nil {
		return fmt.Errorf("reading resolution of %s: %w", group, err)
	}
	if !ok {
		return fmt.Errorf("group %s has no resolution", group)
	}
	var facts []resolve.Fact
	if err := json.Unmarshal(body, &facts); err != nil {
		return fmt.Errorf("decoding resolution of %s: %w", group, err)
	}
	// Group order: the creating episode's position, as resolution numbers it.
	sort.SliceStable(facts, func(a, b int) bool { return facts[a].Order < facts[b].Order })
	for i := range facts {
		facts[i] = Normalize(facts[i])
	}
	cands := FindCandidates(facts, opts.MaxCandidates)
	judgements := make([]Judgement, len(facts))
	var bad stages.Degraded
	p := stages.NewPool(ctx, env.Concurrency)
	for i := range facts {
		if len(cands[i].Invalidation) == 0 {
			continue
		}
		p.Go(func(ctx context.Context) error {
			var out llm.JudgeOutput
			if err := env.LLM.Call(ctx, Stage, llm.TaskJudgeFact, JudgeInput(facts, i, cands[i]), &out); err != nil {
				// A bad answer judges nothing: no duplicate, no contradiction.
				return bad.Absorb(fmt.Errorf("judging fact %s: %w", facts[i].UUID, err))
			}
			judgements[i] = Decode(out, cands[i])
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return err
	}
	out, versions := Apply(group, facts, judgements)
	return stages.Commit(ctx, env, Stage, group, fp, &bad, func(tx *checkpoints.Tx) error {
		return tx.ReplaceFacts(ctx, group, out, versions)
	})
}
