package localllm

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestSmokeInputAsksEveryTask runs the smoke job against the LLM stub (the offline responder)
// in each response format and extraction mode, one call per episode and in windows of 4: the
// smoke input must make the pipeline ask every task of a run at least once, and the stub must
// recognise the task of every request.
func TestSmokeInputAsksEveryTask(t *testing.T) {
	bin := harness.BuildBinary(t)
	for _, format := range wire.Formats() {
		for _, v := range []struct {
			name   string
			mode   string
			window int
		}{
			{extract.ModeCombined, extract.ModeCombined, 1},
			{extract.ModeTwoCall, extract.ModeTwoCall, 1},
			{"window", extract.ModeCombined, 4},
		} {
			t.Run(format+"/"+v.name, func(t *testing.T) { smokeAsksEveryTask(t, bin, format, v.mode, v.window) })
		}
	}
}

func smokeAsksEveryTask(t *testing.T, bin, format, mode string, window int) {
	s, err := harness.StartStub(stub.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := t.TempDir()
	job, _ := smokeJob(t, dir, s.URL, "stub-chat", format, mode, window)
	res, rep := runJob(t, bin, job, filepath.Join(dir, "report.json"))
	if res.Code != 0 || rep.FailedUnits != 0 {
		t.Fatalf("exit %d, %d failed units\n%s", res.Code, rep.FailedUnits, res.Stderr)
	}
	asked := map[string]int{}
	for _, a := range s.Answers() {
		asked[a.Task]++
	}
	// The other mode's extraction tasks are not asked, nor extract_window one call per episode;
	// answer_question and grade_answer are asked by eval --qa, not by a run.
	other := extract.Tasks(extract.ModeTwoCall)
	if mode == extract.ModeTwoCall {
		other = extract.Tasks(extract.ModeCombined)
	}
	if window <= 1 {
		other = append(other, wire.TaskExtractWindow)
	}
	for _, task := range wire.Tasks() {
		notRun := slices.Contains(other, task) || task == wire.TaskAnswerQuestion || task == wire.TaskGradeAnswer
		if !notRun && asked[task] == 0 {
			t.Errorf("the smoke input never asks %s (asked %v)", task, asked)
		}
	}
	t.Logf("requests by task: %v", asked)
	if asked[""] > 0 {
		t.Errorf("requests of no recognised task: %v", asked)
	}
}
