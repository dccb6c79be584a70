package pipeline_test

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/stages"
)

// TestStagesFollowTheStepTable: the list a run, a plan and status walk is the step table in its
// order, every stage once, with load only for a graph sink.
func TestStagesFollowTheStepTable(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want int // steps of the table the list holds, from the first
	}{
		{nil, len(stages.Steps) - 1},
		{[]string{"sink.kind=neo4j"}, len(stages.Steps)},
		{[]string{"sink.kind=memgraph"}, len(stages.Steps)},
	} {
		j := jobstest.DemoJob(t, tc.sets...)
		list, err := pipeline.Stages(j, pipeline.Inputs{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != tc.want {
			t.Fatalf("%v: %d stages, want %d", tc.sets, len(list), tc.want)
		}
		for i, s := range list {
			if got := s.Step(); got != stages.Steps[i] {
				t.Errorf("%v: stage %d is %+v, want %+v", tc.sets, i, got, stages.Steps[i])
			}
		}
	}
}

// keys returns the key of every stage of j's list, by stage, under the clients j builds.
func keys(t *testing.T, j *pipeline.Job) map[string]string {
	t.Helper()
	cl, err := pipeline.NewClients(j, nil, jobstest.NoEnv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := pipeline.Stages(j, pipeline.Inputs{})
	if err != nil {
		t.Fatal(err)
	}
	env := stages.Env{LLM: cl.LLM, Embedder: cl.Embedder, RecordTime: j.RecordTime}
	out := map[string]string{}
	for _, s := range list {
		k, err := s.Key(env)
		if err != nil {
			t.Fatal(err)
		}
		out[s.Step().Name] = k
	}
	return out
}

// TestEveryStageKeyReachesItsStage: every key under stages.* (as the stages declare them, with
// the example value each declares, and the settings it needs to act: options.Example) reaches
// the key of its stage, so a change to it re-runs the stage's units (and, through the
// fingerprints' chain, those after it) and nothing before it.
func TestEveryStageKeyReachesItsStage(t *testing.T) {
	base := keys(t, jobstest.DemoJob(t))
	n := 0
	for _, k := range pipeline.Keys().Keys() {
		if !strings.HasPrefix(k.Path, "stages.") {
			continue
		}
		n++
		v, with := k.Key.Example()
		if v == "" {
			t.Errorf("%s: declares no example value (options.Example): every stage option must reach its stage's key", k.Path)
			continue
		}
		stage := strings.Split(k.Path, ".")[1]
		from := base // a key that acts only with another setting is compared with the job with that setting
		if len(with) > 0 {
			from = keys(t, jobstest.DemoJob(t, with...))
		}
		got := keys(t, jobstest.DemoJob(t, append(with, k.Path+"="+v)...))
		for name, key := range got {
			if changed := key != from[name]; changed != (name == stage) {
				t.Errorf("%s=%s: the key of %s changed: %v (want only %s's)", k.Path, v, name, changed, stage)
			}
		}
	}
	if n < 18 {
		t.Errorf("only %d keys under stages", n)
	}
}
