package offline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/llm"
)

// knownTask reports whether the responder answers the task.
func knownTask(task string) bool {
	switch task {
	case llm.TaskExtract, llm.TaskJudgeFact, llm.TaskSummarize, llm.TaskMergeSummaries, llm.TaskNameCommunity,
		llm.TaskExtractEntities, llm.TaskExtractFacts, llm.TaskResolveEntities, llm.TaskDedupeFacts,
		llm.TaskAnswerQuestion, llm.TaskGradeAnswer:
		return true
	}
	return false
}

// taskInput finds the task input of a request: the JSON between the last llm.InputFence and the
// closing fence of the last user message that has one. Later user messages without a fence (such
// as a validation error fed back by the client) are skipped.
func taskInput(msgs []chatMessage) ([]byte, error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		text := msgs[i].text()
		start := strings.LastIndex(text, llm.InputFence)
		if start < 0 {
			continue
		}
		rest := text[start+len(llm.InputFence):]
		end := strings.LastIndex(rest, "\n```")
		if end < 0 {
			return nil, errors.New("reading task input: the input block has no closing fence")
		}
		return []byte(rest[:end]), nil
	}
	return nil, errors.New("reading task input: no user message ends with an input block")
}

// answer decodes the input of task and returns the JSON answer.
func answer(task string, raw []byte) (string, error) {
	var out any
	var err error
	switch task {
	case llm.TaskExtract:
		var in llm.ExtractInput
		if err = decode(raw, &in); err == nil {
			out = extract(in)
		}
	case llm.TaskJudgeFact:
		var in llm.JudgeInput
		if err = decode(raw, &in); err == nil {
			out = judge(in)
		}
	case llm.TaskSummarize:
		var in llm.SummarizeInput
		if err = decode(raw, &in); err == nil {
			out = summarize(in)
		}
	case llm.TaskMergeSummaries:
		var in llm.MergeInput
		if err = decode(raw, &in); err == nil {
			out = mergeSummaries(in)
		}
	case llm.TaskNameCommunity:
		var in llm.NameInput
		if err = decode(raw, &in); err == nil {
			out = nameCommunity(in)
		}
	case llm.TaskExtractEntities:
		var in llm.ExtractInput
		if err = decode(raw, &in); err == nil {
			out = extractEntities(in)
		}
	case llm.TaskExtractFacts:
		var in llm.FactsInput
		if err = decode(raw, &in); err == nil {
			out = extractFacts(in)
		}
	case llm.TaskResolveEntities:
		var in llm.ResolveInput
		if err = decode(raw, &in); err == nil {
			out = resolveEntities(in)
		}
	case llm.TaskDedupeFacts:
		var in llm.DedupeInput
		if err = decode(raw, &in); err == nil {
			out = dedupeFacts(in)
		}
	case llm.TaskAnswerQuestion:
		var in llm.AnswerInput
		if err = decode(raw, &in); err == nil {
			out = answerQuestion(in)
		}
	case llm.TaskGradeAnswer:
		var in llm.GradeInput
		if err = decode(raw, &in); err == nil {
			out = gradeAnswer(in)
		}
	default:
		return "", fmt.Errorf("answering: unknown task %q", task)
	}
	if err != nil {
		return "", fmt.Errorf("decoding %s input: %w", task, err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("encoding %s answer: %w", task, err)
	}
	return string(b), nil
}

func decode(raw []byte, v any) error { return json.Unmarshal(raw, v) }
