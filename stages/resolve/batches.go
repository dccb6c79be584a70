package resolve

import (
	"context"
	"fmt"

	"github.com/sourcegraph/conc/pool"
)

// askInBatches splits the question indexes ask into batches of Options.BatchSize, runs call on
// each batch (at most env.Concurrency at a time) and returns, per index of ask, whether the
// answer named that question's id in its batch ("P0", "P1"… in batch order). call returns the
// ids the LLM answered.
func (r *resolver) askInBatches(ctx context.Context, ask []int, call func(ctx context.Context, batch []int) ([]string, error)) ([]bool, error) {
	var batches [][]int
	for i := 0; i < len(ask); i += r.opts.BatchSize {
		batches = append(batches, ask[i:min(i+r.opts.BatchSize, len(ask))])
	}
	answers := make([]map[string]bool, len(batches))
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(max(1, r.env.Concurrency))
	for bi, b := range batches {
		p.Go(func(ctx context.Context) error {
			ids, err := call(ctx, b)
			if err != nil {
				return err
			}
			answers[bi] = setOf(ids)
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	r.stats.Calls += len(batches)
	out := make([]bool, 0, len(ask))
	for bi, b := range batches {
		for k := range b {
			out = append(out, answers[bi][pairID(k)])
		}
	}
	return out, nil
}

// pairID is the id of the k-th question of a batch.
func pairID(k int) string { return fmt.Sprintf("P%d", k) }

// setOf returns a set of strings.
func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}
