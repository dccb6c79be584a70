package stages

import (
	"context"
)

// GroupFingerprint is the fingerprint of a group unit whose upstream unit has fingerprint up:
// the upstream's fingerprint and the stage's key (RunGroups, PlanGroups, the load stage).
func GroupFingerprint(up, key string) string { return Fingerprint(up, key) }

// PlanGroups finds the units (groups) of a stage whose units chain their upstream unit of the
// same group (RunGroups, and the load stage) that are done: a group is done when its upstream
// unit is done (env.Done) and the fingerprint a run would compute from the upstream's
// fingerprint on record equals the stage's own on record. It records the done groups in
// env.Done and returns the episodes of each group to do, in group order, with the stage's
// estimate so far: its units, those done, and calls exact when none is left to do.
func PlanGroups(ctx context.Context, env PlanEnv, s Stage, basis string) ([]int, Estimate, error) {
	stage := s.Step().Name
	est := Estimate{Stage: stage, Basis: basis}
	key, err := s.Key(env.Env)
	if err != nil {
		return nil, est, err
	}
	sizes, err := env.Store.GroupSizes(ctx)
	if err != nil {
		return nil, est, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return nil, est, err
	}
	upstream := Upstream(stage)
	done, err := env.Stored(ctx, stage)
	if err != nil {
		return nil, est, err
	}
	up, err := env.Stored(ctx, upstream)
	if err != nil {
		return nil, est, err
	}
	var todo []int
	for _, g := range groups {
		if env.Done.Has(upstream, g) && done[g] != "" && done[g] == GroupFingerprint(up[g], key) {
			est.Done++
			env.Done.Add(stage, g)
			if g == env.Group {
				est.GroupDone = 1
			}
			continue
		}
		todo = append(todo, sizes[g])
	}
	est.Units, est.CallsExact = len(groups), len(todo) == 0
	return todo, est, nil
}
