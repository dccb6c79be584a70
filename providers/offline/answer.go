package offline

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// knownTask reports whether the responder answers the task.
func knownTask(task string) bool {
	switch task {
	case wire.TaskExtract, wire.TaskJudgeFact, wire.TaskSummarize, wire.TaskMergeSummaries, wire.TaskNameCommunity,
		wire.TaskExtractEntities, wire.TaskExtractFacts, wire.TaskResolveEntities, wire.TaskDedupeFacts,
		wire.TaskAnswerQuestion, wire.TaskGradeAnswer, wire.TaskExtractWindow:
		return true
	}
	return false
}

// taskInput finds the task input of a request: the JSON between the last wire.InputFence and the
// closing fence of the last user message that has one. Later user messages without a fence (such
// as a validation error fed back by the client) are skipped.
func taskInput(msgs []chatMessage) ([]byte, error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		text := msgs[i].text()
		start := strings.LastIndex(text, wire.InputFence)
		if start < 0 {
			continue
		}
		rest := text[start+len(wire.InputFence):]
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
	case wire.TaskExtract:
		var in wire.ExtractInput
		if err = decode(raw, &in); err == nil {
			out = extractGraph(in)
		}
	case wire.TaskExtractWindow:
		var in wire.WindowInput
		if err = decode(raw, &in); err == nil {
			out = extractWindow(in)
		}
	case wire.TaskJudgeFact:
		var in wire.JudgeInput
		if err = decode(raw, &in); err == nil {
			out = judge(in)
		}
	case wire.TaskSummarize:
		var in wire.SummarizeInput
		if err = decode(raw, &in); err == nil {
			out = summarize(in)
		}
	case wire.TaskMergeSummaries:
		var in wire.MergeInput
		if err = decode(raw, &in); err == nil {
			out = mergeSummaries(in)
		}
	case wire.TaskNameCommunity:
		var in wire.NameInput
		if err = decode(raw, &in); err == nil {
			out = nameCommunity(in)
		}
	case wire.TaskExtractEntities:
		var in wire.ExtractInput
		if err = decode(raw, &in); err == nil {
			out = extractEntities(in)
		}
	case wire.TaskExtractFacts:
		var in wire.FactsInput
		if err = decode(raw, &in); err == nil {
			out = extractFacts(in)
		}
	case wire.TaskResolveEntities:
		var in wire.ResolveInput
		if err = decode(raw, &in); err == nil {
			out = resolveEntities(in)
		}
	case wire.TaskDedupeFacts:
		var in wire.DedupeInput
		if err = decode(raw, &in); err == nil {
			out = dedupeFacts(in)
		}
	case wire.TaskAnswerQuestion:
		var in wire.AnswerInput
		if err = decode(raw, &in); err == nil {
			out = answerQuestion(in)
		}
	case wire.TaskGradeAnswer:
		var in wire.GradeInput
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
