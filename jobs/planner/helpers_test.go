package planner

import (
	"context"
	"testing"

	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/report"
)

var (
	demoJob    = jobstest.DemoJob
	exampleJob = jobstest.ExampleJob
	startStub  = jobstest.StartStub
	stubJob    = jobstest.StubJob
)

func run(t *testing.T, j *pipeline.Job) *report.Report {
	t.Helper()
	rep, err := runner.Run(context.Background(), j, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// plan plans j, failing the test on an error.
func plan(t *testing.T, j *pipeline.Job) *Plan {
	t.Helper()
	p, err := Make(context.Background(), j, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
