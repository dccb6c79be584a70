package runner

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/report"
)

func reportJSON(t *testing.T, r *report.Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	demoJob       = jobstest.DemoJob
	exampleJob    = jobstest.ExampleJob
	loadDemo      = jobstest.LoadDemo
	startStub     = jobstest.StartStub
	stubJob       = jobstest.StubJob
	export        = jobstest.Export
	sameExport    = jobstest.SameExport
	newTestLogger = jobstest.NewLogger
)

// testClock is the record time of the tests' runs.
var testClock = graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))

func mustRun(t *testing.T, j *pipeline.Job) *report.Report {
	t.Helper()
	rep, err := Run(context.Background(), j, Options{Clock: testClock})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
