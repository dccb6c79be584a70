package community

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sourcegraph/conc/pool"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
)

// describe builds one community: members, summary by pairwise map-reduce, name, created_at.
func describe(ctx context.Context, env stages.Env, opts StageOptions, group string, ents []graph.Entity, members []int32, degree []int) (graph.Community, error) {
	c := graph.Community{GroupID: group}
	var created time.Time
	for _, m := range members {
		e := ents[m]
		c.Members = append(c.Members, e.UUID)
		if created.IsZero() || e.CreatedAt.After(created) {
			created = e.CreatedAt
		}
	}
	sort.Strings(c.Members)
	c.UUID, c.CreatedAt = graph.CommunityID(group, c.Members), created
	// The most connected members' summaries, in uuid order, are the leaves of the reduction.
	top := append([]int32(nil), members...)
	sort.SliceStable(top, func(i, j int) bool {
		if degree[top[i]] != degree[top[j]] {
			return degree[top[i]] > degree[top[j]]
		}
		return ents[top[i]].UUID < ents[top[j]].UUID
	})
	if len(top) > opts.MaxSummarized {
		top = top[:opts.MaxSummarized]
	}
	sort.Slice(top, func(i, j int) bool { return ents[top[i]].UUID < ents[top[j]].UUID })
	parts := make([]string, len(top))
	for i, m := range top {
		parts[i] = strings.TrimSpace(ents[m].Name + ": " + ents[m].Summary)
	}
	sum, err := reduce(ctx, env, parts)
	if err != nil {
		return c, fmt.Errorf("summarizing community of %s: %w", group, err)
	}
	var name llm.NameOutput
	if err := env.LLM.Call(ctx, Stage, llm.TaskNameCommunity, llm.NameInput{Summary: sum}, &name); err != nil {
		return c, fmt.Errorf("naming community of %s: %w", group, err)
	}
	c.Summary, c.Name = sum, strings.TrimSpace(name.Name)
	return c, nil
}

// reduce merges summaries pairwise, round after round, the merges of a round in parallel.
func reduce(ctx context.Context, env stages.Env, parts []string) (string, error) {
	for len(parts) > 1 {
		next := make([]string, (len(parts)+1)/2)
		p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(max(1, env.Concurrency))
		for i := 0; i < len(parts); i += 2 {
			if i+1 == len(parts) {
				next[i/2] = parts[i]
				continue
			}
			p.Go(func(ctx context.Context) error {
				var out llm.MergeOutput
				if err := env.LLM.Call(ctx, Stage, llm.TaskMergeSummaries, llm.MergeInput{A: parts[i], B: parts[i+1]}, &out); err != nil {
					return err
				}
				next[i/2] = strings.TrimSpace(out.Summary)
				return nil
			})
		}
		if err := p.Wait(); err != nil {
			return "", err
		}
		parts = next
	}
	if len(parts) == 0 {
		return "", nil
	}
	return parts[0], nil
}
