package stages

import (
	"context"
)

// GroupRun computes and commits one group's unit.
type GroupRun func(ctx context.Context, group, fingerprint string) error

// RunGroups runs a stage whose units are groups and whose inputs are the upstream stage's unit of
// the same group (Upstream): a group's fingerprint hashes the upstream fingerprint and the
// stage's key (Key: options, prompt hashes, models). Groups whose fingerprint is on record are
// skipped without being read; PlanGroups finds the same groups done for a plan.
func RunGroups(ctx context.Context, env Env, stage, key string, run GroupRun) (Stats, error) {
	done, err := env.Store.Fingerprints(ctx, stage)
	if err != nil {
		return Stats{}, err
	}
	up, err := env.Store.Fingerprints(ctx, Upstream(stage))
	if err != nil {
		return Stats{}, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return Stats{}, err
	}
	units := make([]Unit, 0, len(groups))
	for _, g := range groups {
		fp := GroupFingerprint(up[g], key)
		units = append(units, Unit{Key: g, Group: g, Fingerprint: fp, Run: func(ctx context.Context, fp string) error {
			return run(ctx, g, fp)
		}})
	}
	return RunUnits(ctx, env, stage, units, done)
}
