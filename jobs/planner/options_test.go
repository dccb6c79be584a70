package planner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
)

// transportKeys are the llm and embedder keys that reach neither what a request asks nor a
// fingerprint, with why: where and how requests are sent, how they are paced, retried, cached,
// priced and batched. Every other key under llm and embedder has a value in requestValues.
var transportKeys = map[string]string{
	"llm.provider": "where requests go", "llm.base_url": "where requests go", "llm.api_key_env": "the key they carry",
	"llm.concurrency": "pacing", "llm.rpm": "pacing", "llm.tpm": "pacing", "llm.max_attempts": "retries",
	"llm.timeout_seconds": "retries", "llm.cache": "whether answers are kept, not what is asked",
	"llm.prices": "accounting", "llm.mode": "how requests are sent (online or in provider batches)",
	"llm.batch.max_requests": "batching", "llm.batch.max_bytes": "batching", "llm.batch.max_retries": "batching",
	"llm.batch.fallback_online": "batching", "llm.batch.poll_seconds": "batching",
	"embedder.provider": "where requests go", "embedder.base_url": "where requests go", "embedder.api_key_env": "the key they carry",
	"embedder.batch_size": "texts per request: a vector and its cache key depend on its text only",
	"embedder.mode":       "how requests are sent",
}

// requestValues are the llm and embedder keys that reach what a request asks (and so the
// fingerprints of the units that ask it), each with a value other than the job's default.
func requestValues(t *testing.T) map[string]string {
	dir := jobstest.PromptsDir(t, wire.TaskJudgeFact, "\nBe brief.")
	return map[string]string{
		"llm.model": "offline-2", "llm.temperature": "0.7", "llm.frequency_penalty": "0.5", "llm.prompts_dir": dir,
		"llm.response_format": "json_object", "llm.max_tokens": "extract_graph=3000",
		"embedder.model": "hashing-v2", "embedder.dimensions": "128",
	}
}

// TestPlanSeesEveryRequestOption: for every job key that reaches a request of the LLM or the
// embedder (the keys under llm and embedder, found by reflection; each either has a test value or
// is named a transport key with a reason), the plan of the job with the key changed, made on the
// store of a run of the job without it, predicts exactly the units the run with it then runs,
// stage by stage, and extraction's calls exactly; a plan after that run predicts no call. A
// planner that built its clients or its stages without the key would see other fingerprints.
func TestPlanSeesEveryRequestOption(t *testing.T) {
	values := requestValues(t)
	var keys []string
	for _, section := range []string{"llm", "embedder"} {
		for _, k := range jobstest.Keys(t, section) {
			_, transport := transportKeys[k]
			_, request := values[k]
			if transport == request {
				t.Errorf("%s: name it in requestValues (with a value) or in transportKeys (with why)", k)
			}
			if request {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) != len(values) {
		t.Fatalf("requestValues names keys the job does not have: %v, job keys %v", values, keys)
	}
	base := demoJob(t)
	run(t, base)
	for _, k := range keys {
		t.Run(k, func(t *testing.T) {
			set := k + "=" + values[k]
			if k == "llm.max_tokens" {
				set = k + "." + values[k]
			}
			j := demoJob(t, set)
			copyStore(t, base.Checkpoint, j.Checkpoint)
			p := plan(t, j)
			rep := run(t, j)
			samePlanAndRun(t, p, rep)
			if after := plan(t, j); after.Total.Calls != 0 {
				t.Errorf("the plan after the run predicts %d calls, want 0", after.Total.Calls)
			}
		})
	}
}

// samePlanAndRun requires the plan to predict the units the run ran, stage by stage, and the
// extraction calls it made.
func samePlanAndRun(t *testing.T, p *Plan, rep *report.Report) {
	t.Helper()
	for _, s := range p.Stages {
		if s.Stage == stages.Ingest {
			continue
		}
		if got := rep.Stages[s.Stage].Units; got != s.Units-s.Done {
			t.Errorf("%s: the plan finds %d of %d units done, the run ran %d", s.Stage, s.Done, s.Units, got)
		}
	}
	ex := stagePlan(t, p, stages.Extract)
	if u := rep.LLMByStage[stages.Extract]; ex.Calls != u.Calls || !ex.CallsExact {
		t.Errorf("extract: the plan predicts %d calls (%d cached), the run made %d (%d cache hits)", ex.Calls, ex.CachedCalls, u.Calls, u.CacheHits)
	}
}

// copyStore copies the checkpoint store at from (closed, its write-ahead log folded in) to to.
func copyStore(t *testing.T, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		src, err := os.Open(from + suffix)
		if os.IsNotExist(err) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(to + suffix)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(dst, src)
		src.Close()
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestPlanAfterFrequencyPenaltyRun is the case that found the class: after a run with
// llm.frequency_penalty set, the plan of the same job finds every unit done and predicts no call
// (the planner's client once lacked the penalty and predicted every extraction call again). With
// the extraction units' records stale (as after a change of the fingerprint recipe), it finds
// every extraction answer in the cache.
func TestPlanAfterFrequencyPenaltyRun(t *testing.T) {
	j := demoJob(t, "llm.frequency_penalty=0.5")
	rep := run(t, j)
	asked := rep.LLMByStage[stages.Extract].Calls
	p := plan(t, j)
	if ex := stagePlan(t, p, stages.Extract); ex.Done != ex.Units || ex.Calls != 0 || ex.CachedCalls != 0 || p.Total.Calls != 0 {
		t.Fatalf("plan after the run: extract %+v, total %+v; want every unit done and no call", ex, p.Total)
	}
	staleRecords(t, j, stages.Extract)
	p = plan(t, j)
	if ex := stagePlan(t, p, stages.Extract); ex.Done != 0 || ex.Calls != 0 || ex.CachedCalls != asked || !ex.CallsExact {
		t.Fatalf("plan with stale extraction records: extract %+v; want all %d answers cached", ex, asked)
	}
	if again := run(t, j); again.LLM.Calls != 0 || again.Stages[stages.Extract].Units != rep.Stages[stages.Extract].Units {
		t.Fatalf("the run after: %d calls, extract %+v; want every unit again, answered by the cache", again.LLM.Calls, again.Stages[stages.Extract])
	}
}

// staleRecords rewrites the fingerprint of every unit of stage in the job's store.
func staleRecords(t *testing.T, j *pipeline.Job, stage string) {
	t.Helper()
	ctx := context.Background()
	store := jobstest.OpenStore(t, j)
	defer store.Close()
	groups, err := store.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		fps, err := store.EpisodeFingerprints(ctx, stage, g)
		if err != nil {
			t.Fatal(err)
		}
		for unit, fp := range fps {
			if err := store.CommitUnit(ctx, stage, unit, "stale-"+fp, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPlanMatchesTheRun: after a run, the plan of the job changed in one way (a new message in
// one group, a stage option, the other record-time mode, a graph sink) predicts exactly the units
// the run of the changed job then runs, stage by stage; ingesting the sources over a copy of the
// job's episodes keeps their record times, so under record_time: ingest nothing is done again.
func TestPlanMatchesTheRun(t *testing.T) {
	extra := filepath.Join(t.TempDir(), "more.jsonl")
	line := `{"group_id":"alice","reference_time":"2024-06-01T10:00:00+09:00","speaker":"Alice","content":"I moved to Seoul last week and I work at Naver now."}` + "\n"
	if err := os.WriteFile(extra, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		base, sets  []string
		addMessage  bool
		wantChanged []string // stages with units to do
	}{
		{name: "nothing changed"},
		{name: "a new message", addMessage: true, wantChanged: []string{"extract", "resolve", "temporal", "summarize", "embed", "community"}},
		{name: "a summarize option", sets: []string{"stages.summarize.batch_size=1"}, wantChanged: []string{"summarize", "embed", "community"}},
		{name: "record time ingest, unchanged", base: []string{"record_time=ingest"}, sets: []string{"record_time=ingest"}},
		{name: "record time ingest to reference", base: []string{"record_time=ingest"},
			wantChanged: []string{"resolve", "temporal", "summarize", "embed", "community"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := demoJob(t, tc.base...)
			run(t, base)
			j := demoJob(t, tc.sets...)
			j.Checkpoint = base.Checkpoint
			if tc.addMessage {
				j.Sources = append(j.Sources, ingest.Source{Spec: loaders.Spec{Path: extra, Format: "jsonl", Source: "message", Description: "chat history",
					Mapping: loaders.Mapping{Group: "group_id", ReferenceTime: "reference_time", Speaker: "speaker", Body: "content"}}})
			}
			p := plan(t, j)
			var changed []string
			for _, s := range p.Stages {
				if s.Stage != stages.Ingest && s.Done < s.Units {
					changed = append(changed, s.Stage)
				}
			}
			if !slices.Equal(changed, tc.wantChanged) {
				t.Errorf("the plan has units to do in %v, want %v", changed, tc.wantChanged)
			}
			samePlanAndRun(t, p, run(t, j))
		})
	}
}

// TestPlanAfterForget: after a forget, whose run computed the changed groups again, the plan of
// the job (whose sources still hold the forgotten rows) predicts no call: its scratch store skips
// the rows a deletion forgot, as the run's ingest does.
func TestPlanAfterForget(t *testing.T) {
	j := demoJob(t)
	run(t, j)
	store, err := runner.OpenStore(context.Background(), j, runner.Options{}, true, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runner.Forget(store.Ctx, j, store, runner.ForgetOptions{Selection: checkpoints.Selection{Speakers: []string{"Alice"}}})
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	p := plan(t, j)
	if p.Total.Calls != 0 {
		t.Errorf("the plan after a forget predicts %d calls, want 0: %+v", p.Total.Calls, p.Stages)
	}
	samePlanAndRun(t, p, run(t, j))
}
