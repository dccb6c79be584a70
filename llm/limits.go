package llm

import (
	"fmt"
	"math"
	"slices"

	"github.com/tkgraph/backfill/llm/wire"
)

// MaxTokensCap bounds the max_tokens the sizing rule gives a request; an override
// (Options.MaxTokens) may go past it.
const MaxTokensCap = 8192

// tokenRule sizes the max_tokens of a task's requests: base tokens plus perInput tokens for
// every estimated token of the rendered user message (the input and its context), at most
// MaxTokensCap. The bases hold the largest good answer the task's schema allows for a small
// input; perInput lets the answer grow with what there is to extract or summarize.
type tokenRule struct {
	base     int
	perInput float64
}

// tokenRules are the sizing rules by task; a task missing here gets defaultTokenRule.
func tokenRules() map[string]tokenRule {
	return map[string]tokenRule{
		wire.TaskExtract:         {512, 1},
		wire.TaskExtractWindow:   {512, 1},
		wire.TaskExtractEntities: {256, 0.5},
		wire.TaskExtractFacts:    {384, 1},
		wire.TaskJudgeFact:       {256, 0.25},
		wire.TaskResolveEntities: {128, 0.1},
		wire.TaskDedupeFacts:     {128, 0.1},
		wire.TaskSummarize:       {256, 0.5},
		wire.TaskMergeSummaries:  {256, 0.5},
		wire.TaskNameCommunity:   {64, 0},
		wire.TaskAnswerQuestion:  {128, 0},
		wire.TaskGradeAnswer:     {32, 0},
	}
}

var defaultTokenRule = tokenRule{512, 1}

// lengthRaise multiplies the limit of the one retry an answer cut by max_tokens gets.
const lengthRaise = 2

// MaxTokens is the max_tokens of a request of task whose rendered messages are msgs: the
// job's override of the task (Options.MaxTokens) when there is one, otherwise the task's sizing
// rule.
func (c *Client) MaxTokens(task string, msgs []wire.Message) int {
	if n, ok := c.opts.MaxTokens[task]; ok {
		return n
	}
	r, ok := tokenRules()[task]
	if !ok {
		r = defaultTokenRule
	}
	in := 0
	for _, m := range msgs {
		if m.Role == wire.RoleUser {
			in += wire.EstimateTokens(m.Content)
		}
	}
	return min(r.base+int(math.Ceil(r.perInput*float64(in))), MaxTokensCap)
}

// tokenPolicy describes how the client sizes a task's max_tokens and treats the answers the limit
// cuts, for TaskVersion: the override, or the rule, and the salvage rules.
func (c *Client) tokenPolicy(task string) string {
	if n, ok := c.opts.MaxTokens[task]; ok {
		return fmt.Sprintf("max_tokens=%d,%s", n, salvageVersion)
	}
	r, ok := tokenRules()[task]
	if !ok {
		r = defaultTokenRule
	}
	return fmt.Sprintf("max_tokens=%d+%g*input<=%d,raise*%d,%s", r.base, r.perInput, MaxTokensCap, lengthRaise, salvageVersion)
}

// CheckMaxTokens reports an override naming an unknown task or a limit below 1.
func CheckMaxTokens(overrides map[string]int) error {
	names := make([]string, 0, len(overrides))
	for name := range overrides {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !slices.Contains(wire.Tasks(), name) {
			return fmt.Errorf("%q is not a task (want one of %v)", name, wire.Tasks())
		}
		if overrides[name] < 1 {
			return fmt.Errorf("%s: %d is below 1", name, overrides[name])
		}
	}
	return nil
}
