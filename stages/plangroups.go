package stages

import (
	"context"
)

// GroupFingerprint is the fingerprint of a group unit whose upstream unit has fingerprint up:
// the upstream's fingerprint and the stage's key (RunGroups, PlanGroups, the load stage).
func GroupFingerprint(up, key string) string { return Fingerprint(up, key) }

// GroupPlan is what a plan finds of a group stage: its units (groups), those done, and the
// episodes of each group to do (the size its estimate scales with).
type GroupPlan struct {
	Units, Done int
	Todo        []int // episodes per group to do, in group order
}

// PlanGroups sorts the groups of a stage whose units chain their upstream unit of the same group
// (RunGroups, and the load stage) into done and to do: a group is done when its upstream unit is
// done (env.Done) and the fingerprint a run would compute from the upstream's fingerprint on
// record equals the stage's own on record. It records the done groups in env.Done.
func PlanGroups(ctx context.Context, env PlanEnv, stage, key string) (GroupPlan, error) {
	sizes, err := env.Store.GroupSizes(ctx)
	if err != nil {
		return GroupPlan{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return GroupPlan{}, err
	}
	upstream := Upstream(stage)
	done, err := env.Stored(ctx, stage)
	if err != nil {
		return GroupPlan{}, err
	}
	up, err := env.Stored(ctx, upstream)
	if err != nil {
		return GroupPlan{}, err
	}
	gp := GroupPlan{Units: len(groups)}
	for _, g := range groups {
		if env.Done.Has(upstream, g) && done[g] != "" && done[g] == GroupFingerprint(up[g], key) {
			gp.Done++
			env.Done.Add(stage, g)
			continue
		}
		gp.Todo = append(gp.Todo, sizes[g])
	}
	return gp, nil
}
