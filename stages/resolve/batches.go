package resolve

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/stages"
)

// askInBatches splits the question indexes ask into batches of Options.BatchSize, runs call on
// each batch (at most env.Concurrency at a time) and returns, per index of ask, whether the
// answer named that question's id in its batch ("P0", "P1"… in batch order) and whether the
// question was answered at all. call returns the ids the LLM answered. A batch whose answer
// stays bad is absorbed by r.bad: its questions count as answered "no" (the pairs stay apart)
// and as not answered, so the memo keeps no answer for them and the next run asks again.
func (r *resolver) askInBatches(ctx context.Context, ask []int, call func(ctx context.Context, batch []int) ([]string, error)) (yes, answered []bool, err error) {
	var batches [][]int
	for i := 0; i < len(ask); i += r.opts.BatchSize {
		batches = append(batches, ask[i:min(i+r.opts.BatchSize, len(ask))])
	}
	answers := make([]map[string]bool, len(batches))
	p := stages.NewPool(ctx, r.env.Concurrency)
	for bi, b := range batches {
		p.Go(func(ctx context.Context) error {
			ids, err := call(ctx, b)
			if err != nil {
				return r.bad.Absorb(err)
			}
			answers[bi] = setOf(ids)
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, nil, err
	}
	r.stats.Calls += len(batches)
	yes, answered = make([]bool, 0, len(ask)), make([]bool, 0, len(ask))
	for bi, b := range batches {
		for k := range b {
			yes = append(yes, answers[bi][pairID(k)])
			answered = append(answered, answers[bi] != nil)
		}
	}
	return yes, answered, nil
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
