package localllm

import (
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestSmokeInputAsksEveryTask runs the smoke job against the LLM stub (the offline responder)
// in each response format: the smoke input must make the pipeline ask every task of two-call
// extraction at least once, and the stub must recognise the task of every request.
func TestSmokeInputAsksEveryTask(t *testing.T) {
	bin := harness.BuildBinary(t)
	for _, format := range llm.Formats() {
		t.Run(format, func(t *testing.T) {
			s, err := harness.StartStub(stub.Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			dir := t.TempDir()
			job, _ := smokeJob(t, dir, s.URL, "stub-chat", format)
			res, rep := runJob(t, bin, job, filepath.Join(dir, "report.json"))
			if res.Code != 0 || rep.FailedUnits != 0 {
				t.Fatalf("exit %d, %d failed units\n%s", res.Code, rep.FailedUnits, res.Stderr)
			}
			asked := map[string]int{}
			for _, a := range s.Answers() {
				asked[a.Task]++
			}
			for _, task := range llm.Tasks() {
				// extract_graph is the combined mode's; answer_question and grade_answer are
				// asked by eval --qa, not by a run.
				notRun := task == llm.TaskExtract || task == llm.TaskAnswerQuestion || task == llm.TaskGradeAnswer
				if !notRun && asked[task] == 0 {
					t.Errorf("the smoke input never asks %s (asked %v)", task, asked)
				}
			}
			t.Logf("requests by task: %v", asked)
			if asked[""] > 0 {
				t.Errorf("requests of no recognised task: %v", asked)
			}
		})
	}
}
