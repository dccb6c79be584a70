package pipeline

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/jobstest"
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
		list, err := Stages(j, Inputs{})
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
func keys(t *testing.T, j *jobs.Job) map[string]string {
	t.Helper()
	cl, err := NewClients(j, nil, jobstest.NoEnv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := Stages(j, Inputs{})
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

// TestEveryStageKeyReachesItsStage: every key under stages.* (found by reflection on the job
// spec) reaches the key of its stage, so a change to it re-runs the stage's units (and, through
// the fingerprints' chain, those after it) and nothing before it.
func TestEveryStageKeyReachesItsStage(t *testing.T) {
	values := map[string]string{
		"stages.extract.context": "2", "stages.extract.context_tokens": "60", "stages.extract.mode": "two_call",
		"stages.extract.chitchat": "ask", "stages.extract.llm": "off",
		"stages.resolve.minhash_threshold": "0.8", "stages.resolve.embedding_threshold": "0.95",
		"stages.resolve.grey_threshold": "0.7", "stages.resolve.batch_size": "5", "stages.resolve.max_pairs": "10",
		"stages.resolve.llm":             "off",
		"stages.temporal.max_candidates": "5",
		"stages.summarize.short_chars":   "100", "stages.summarize.batch_size": "2",
		"stages.community.max_iterations": "10", "stages.community.min_size": "3", "stages.community.only_valid": "true",
		"stages.community.max_summarized": "4",
		"stages.extract.window":           "4", "stages.extract.window_tokens": "500", "stages.extract.window_gap_seconds": "60",
	}
	// Keys that act only with another setting: compared against the demo job with that setting.
	with := map[string]string{
		"stages.extract.window_tokens": "stages.extract.window=4", "stages.extract.window_gap_seconds": "stages.extract.window=4",
	}
	base := keys(t, jobstest.DemoJob(t))
	all := jobstest.Keys(t, "stages")
	if len(all) != len(values) {
		t.Errorf("the job has %d keys under stages, the test values %d: %v", len(all), len(values), all)
	}
	for _, key := range all {
		v, ok := values[key]
		if !ok {
			t.Errorf("%s: no test value; add one (every stage option must reach its stage's key)", key)
			continue
		}
		stage := strings.Split(key, ".")[1]
		from, sets := base, []string{key + "=" + v}
		if w, ok := with[key]; ok {
			from, sets = keys(t, jobstest.DemoJob(t, w)), append(sets, w)
		}
		got := keys(t, jobstest.DemoJob(t, sets...))
		for name, k := range got {
			if changed := k != from[name]; changed != (name == stage) {
				t.Errorf("%s=%s: the key of %s changed: %v (want only %s's)", key, v, name, changed, stage)
			}
		}
	}
}
