package community

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// leafText is one member as a leaf of the summary reduction.
func leafText(name, summary string) string {
	name, summary = strings.TrimSpace(name), strings.TrimSpace(summary)
	if summary == "" {
		return name
	}
	return name + ": " + summary
}

// pickLeaves picks, for each community, the members whose summaries are merged: the maxLeaves with
// the most facts (ties by uuid, that is by id), returned in id order. want marks every picked
// node.
func pickLeaves(comms [][]int32, deg []int32, maxLeaves int) ([][]int32, []bool) {
	want := make([]bool, len(deg))
	out := make([][]int32, len(comms))
	for c, members := range comms {
		top := slices.Clone(members)
		slices.SortStableFunc(top, func(a, b int32) int { return cmp.Compare(deg[b], deg[a]) })
		top = top[:min(len(top), maxLeaves)]
		slices.Sort(top)
		for _, u := range top {
			want[u] = true
		}
		out[c] = top
	}
	return out, want
}

// reduceAll merges each community's texts pairwise, round after round, until one summary per
// community is left: in each round the texts are paired in order (an odd last one moves on
// unmerged) and all merges of the round, over every community, run in parallel, at most
// env.Concurrency at once. Each merge is one LLM call, cached by the client; a merge whose answer
// stays bad (absorbed by bad) is the two texts joined.
func reduceAll(ctx context.Context, env stages.Env, parts [][]string, bad *stages.Degraded) ([]string, error) {
	for {
		next := make([][]string, len(parts))
		p := stages.NewPool(ctx, env.Concurrency)
		merges := 0
		for c, texts := range parts {
			next[c] = make([]string, (len(texts)+1)/2)
			for i := 0; i < len(texts); i += 2 {
				if i+1 == len(texts) {
					next[c][i/2] = texts[i]
					continue
				}
				merges++
				p.Go(func(ctx context.Context) error {
					var out wire.MergeOutput
					if err := env.LLM.Call(ctx, Stage, wire.TaskMergeSummaries, wire.MergeInput{A: texts[i], B: texts[i+1]}, &out); err != nil {
						next[c][i/2] = texts[i] + "\n" + texts[i+1]
						return bad.Absorb(fmt.Errorf("merging summaries: %w", err))
					}
					next[c][i/2] = strings.TrimSpace(out.Summary)
					return nil
				})
			}
		}
		if err := p.Wait(); err != nil {
			return nil, err
		}
		if merges == 0 {
			break
		}
		parts = next
	}
	out := make([]string, len(parts))
	for c, texts := range parts {
		if len(texts) > 0 {
			out[c] = texts[0]
		}
	}
	return out, nil
}

// nameAll names each community from its summary in one line, in parallel, at most
// env.Concurrency at once. A community whose summary or answer is empty, or whose answer stays
// bad (absorbed by bad), is named after its first leaves instead.
func nameAll(ctx context.Context, env stages.Env, summaries []string, fallback []string, bad *stages.Degraded) ([]string, error) {
	names := make([]string, len(summaries))
	p := stages.NewPool(ctx, env.Concurrency)
	for c, sum := range summaries {
		if sum == "" {
			names[c] = fallback[c]
			continue
		}
		p.Go(func(ctx context.Context) error {
			var out wire.NameOutput
			if err := env.LLM.Call(ctx, Stage, wire.TaskNameCommunity, wire.NameInput{Summary: sum}, &out); err != nil {
				names[c] = fallback[c]
				return bad.Absorb(fmt.Errorf("naming a community: %w", err))
			}
			names[c] = firstLine(out.Name)
			if names[c] == "" {
				names[c] = fallback[c]
			}
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return nil, err
	}
	return names, nil
}

// firstLine returns the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}
