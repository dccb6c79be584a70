package batch

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/tests/harness"
)

// conversations is how many LoCoMo conversations the tests read (788 episodes).
const conversations = 2

// priced runs every job under models with list prices, so costs can be compared.
var priced = []string{"--set", "llm.model=gpt-4o-mini", "--set", "embedder.model=text-embedding-3-small"}

// batchMode puts a job's chat model and embedder in batch mode, polling fast.
var batchMode = []string{"--set", "llm.mode=batch", "--set", "embedder.mode=batch", "--set", "llm.batch.poll_seconds=0.05"}

// fixture is the built binary and the LoCoMo subset of a test.
type fixture struct{ *harness.LoCoMoRun }

func newFixture(t *testing.T) *fixture {
	return &fixture{harness.NewLoCoMoRun(t, conversations)}
}

// start starts `backfill run JOB` with the priced models, a report and args.
func (f *fixture) start(t *testing.T, job string, args ...string) *harness.Proc {
	t.Helper()
	all := append([]string{"run", job, "--report", job + ".report.json"}, priced...)
	p, err := harness.Start(t.Context(), f.Bin, append(all, args...), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs the job to its end and returns how it ended and its report.
func (f *fixture) run(t *testing.T, job string, args ...string) (harness.Result, report.Report) {
	t.Helper()
	res, err := f.start(t, job, args...).Wait()
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if res.Code == 0 {
		harness.ReadJSON(t, job+".report.json", &rep)
	}
	return res, rep
}

// mustRun runs the job and requires exit 0.
func (f *fixture) mustRun(t *testing.T, job string, args ...string) report.Report {
	t.Helper()
	res, rep := f.run(t, job, args...)
	if res.Code != 0 {
		t.Fatalf("backfill run %s: exit %d\n%s", job, res.Code, tail(res.Stderr))
	}
	return rep
}

// export writes the job's Parquet export and returns its directory.
func (f *fixture) export(t *testing.T, job, name string) string {
	t.Helper()
	out := filepath.Join(f.Dir, name+"-export")
	if err := harness.Export(t.Context(), f.Bin, job, out, priced...); err != nil {
		t.Fatal(err)
	}
	return out
}

// tail is the end of a log.
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-25):], "\n")
}

// waves lists the waves of each stage of a report.
func waves(rep report.Report) string {
	var b strings.Builder
	for _, s := range stages.StepNames()[1:] {
		if st, ok := rep.Stages[s]; ok && st.Waves > 0 {
			fmt.Fprintf(&b, " %s %d", s, st.Waves)
		}
	}
	return strings.TrimSpace(b.String())
}
