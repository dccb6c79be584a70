package extract

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Estimate counts the extraction units and those done (their fingerprint on record), renders
// the prompt of every stride-th unit to do (at most env.Sample in all) and scales the sample to
// every unit to do. A call the cache answers is counted as cached and free. In two-call mode the
// facts call of an episode with a stored extraction is rendered from it; of others it is priced
// like the entities call. A window's call is rendered as it would be sent; its completion is
// estimated per episode it asks about (windowCompletion).
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	key, err := s.Options.key(env.Env)
	if err != nil {
		return stages.Estimate{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return stages.Estimate{}, err
	}
	total, err := env.Store.CountEpisodes(ctx)
	if err != nil {
		return stages.Estimate{}, err
	}
	t := &sampler{env: env, tasks: Tasks(s.Options.Mode), stride: max(1, (total+env.Sample-1)/env.Sample), skipped: map[string]int{},
		windowed: s.Options.Windowed()}
	for _, g := range groups {
		if err := t.group(ctx, s.Options, key, g); err != nil {
			return stages.Estimate{}, err
		}
	}
	return t.estimate(total), nil
}

// sampler renders the prompts of a sample of the units to do and counts them.
type sampler struct {
	env    stages.PlanEnv
	tasks  []string
	stride int
	// k counts the units to do, done the episodes done; of the units to do, sampled were
	// rendered, guessed had their facts call priced like the entities call (two-call mode, no
	// stored extraction), skipped were not asked (by extract.Plan.Skip).
	k, done, sampled, guessed         int
	windowed                          bool // the options extract windows (Options.Windowed)
	groupDone                         int  // of done, the episodes of env.Group
	calls, cached, prompt, completion int
	prefixCached                      int // of prompt, served by the provider's prompt cache (CallEstimate.CachedPromptTokens)
	skipped                           map[string]int
}

// group samples the units of one group, and records the group as done when all its units are.
func (t *sampler) group(ctx context.Context, o Options, key, g string) error {
	stored, outs := map[string]string{}, map[string][]byte{}
	if prev := t.env.Prev; prev != nil {
		var err error
		if stored, err = prev.EpisodeFingerprints(ctx, Stage, g); err != nil {
			return err
		}
		if len(t.tasks) == 2 {
			if outs, err = prev.GroupOutputs(ctx, Stage, g); err != nil {
				return err
			}
		}
	}
	all := true
	err := eachUnit(ctx, t.env.Store, o, key, g, func(u unit) error {
		if u.stored(stored) == u.fp {
			t.done += len(u.eps)
			if g == t.env.Group {
				t.groupDone += len(u.eps)
			}
			return nil
		}
		all = false
		if t.k++; (t.k-1)%t.stride != 0 {
			return nil
		}
		if u.win != nil {
			return t.sampleWindow(ctx, u)
		}
		return t.sample(ctx, u.eps[0], u.plans[0], outs[u.eps[0].UUID])
	})
	if err == nil && all {
		t.env.Done.Add(Stage, g)
	}
	return err
}

// windowCompletion estimates the completion tokens of a window's answer: a base, and the
// entities and facts of each episode it asks about.
func windowCompletion(asked int) int { return 40 + 60*asked }

// sampleWindow renders one window's call.
func (t *sampler) sampleWindow(ctx context.Context, u unit) error {
	t.sampled++
	if !u.ask {
		for _, p := range u.plans {
			t.skipped[p.Skip]++
		}
		return nil
	}
	e, err := t.env.Estimator.Estimate(ctx, wire.TaskExtractWindow, u.win)
	if err != nil {
		return fmt.Errorf("planning extraction of window %s: %w", u.eps[0].UUID, err)
	}
	t.calls++
	if e.Cached {
		t.cached++
		return nil
	}
	t.prompt += e.PromptTokens
	t.prefixCached += e.CachedPromptTokens
	t.completion += windowCompletion(len(u.eps))
	return nil
}

// sample renders one unit's calls; out is its stored extraction (nil if none).
func (t *sampler) sample(ctx context.Context, ep graph.Episode, p Plan, out []byte) error {
	t.sampled++
	if !p.Ask {
		t.skipped[p.Skip]++
		return nil
	}
	e, err := t.env.Estimator.Estimate(ctx, t.tasks[0], p.Input)
	if err != nil {
		return fmt.Errorf("planning extraction of %s: %w", ep.UUID, err)
	}
	ests := []llm.CallEstimate{e}
	if len(t.tasks) == 2 { // the facts call: known from a stored extraction, else priced like the first
		var o Output
		if out != nil && json.Unmarshal(out, &o) == nil {
			if fin, ok := FactsInput(p.Input, o.Entities); ok {
				f, err := t.env.Estimator.Estimate(ctx, t.tasks[1], fin)
				if err != nil {
					return fmt.Errorf("planning extraction of %s: %w", ep.UUID, err)
				}
				ests = append(ests, f)
			}
		} else {
			t.guessed++
			ests = append(ests, llm.CallEstimate{PromptTokens: e.PromptTokens})
		}
	}
	per := wire.ExpectedCompletion(t.tasks[0])
	if len(t.tasks) == 2 { // entities and facts calls, about as many of each
		per = (per + wire.ExpectedCompletion(t.tasks[1])) / 2
	}
	for _, e := range ests {
		t.calls++
		if e.Cached {
			t.cached++
			continue
		}
		t.prompt += e.PromptTokens
		t.prefixCached += e.CachedPromptTokens
		t.completion += per
	}
	return nil
}

// estimate scales the sample to every unit to do.
func (t *sampler) estimate(total int) stages.Estimate {
	est := stages.Estimate{Stage: Stage, Units: total, Done: t.done, GroupDone: t.groupDone, CallsExact: t.sampled == t.k && t.guessed == 0,
		Basis: "one call per episode asked; prompt tokens from the rendered prompts"}
	if len(t.tasks) == 2 {
		est.Basis = "two calls per episode asked (entities, then facts when there are two); prompt tokens from the rendered prompts"
		if t.guessed > 0 {
			est.Basis += "; facts calls of episodes not yet extracted counted for every episode, priced like the entities call"
		}
	}
	if t.windowed {
		est.Basis = "one call per window of messages and texts asked, one per JSON record asked; prompt tokens from the rendered prompts"
	}
	if t.sampled > 0 {
		scale := float64(t.k) / float64(t.sampled)
		est.CachedCalls = int(float64(t.cached)*scale + 0.5)
		est.Calls = int(float64(t.calls)*scale+0.5) - est.CachedCalls
		est.PromptTokens = int(float64(t.prompt)*scale + 0.5)
		est.CachedPromptTokens = int(float64(t.prefixCached)*scale + 0.5)
		est.CompletionTokens = int(float64(t.completion)*scale + 0.5)
		est.SkipLLM = int(float64(t.skipped[SkipCovered])*scale + 0.5)
	}
	if t.stride > 1 {
		est.Basis += fmt.Sprintf(" of one unit in %d (%d rendered)", t.stride, t.sampled)
	}
	if n := t.skipped[SkipChitchat]; n > 0 {
		est.Basis += fmt.Sprintf("; chit-chat messages ask nothing (%d of %d rendered)", n, t.sampled)
	}
	if t.skipped[SkipCovered] > 0 {
		est.Basis += "; records covered by declared facts (or without a changed text field) ask nothing"
	}
	if t.cached > 0 {
		est.Basis += "; cached answers in the checkpoint are free"
	}
	t.env.ChatCost(&est)
	return est
}
