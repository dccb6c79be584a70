package llm

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// recorder is an calls.Observer that keeps what it was told.
type recorder struct {
	mu      sync.Mutex
	counted map[string]pacing.StageUsage // by stage and task
	calls   []calls.CallInfo
	ends    []calls.CallEnd
	waits   int
}

func (r *recorder) Counted(stage, task string, d pacing.StageUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counted == nil {
		r.counted = map[string]pacing.StageUsage{}
	}
	s := r.counted[stage+"/"+task]
	s.Sum(d)
	r.counted[stage+"/"+task] = s
}

func (r *recorder) Call(ctx context.Context, c calls.CallInfo) (context.Context, func(calls.CallEnd)) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return ctx, func(e calls.CallEnd) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ends = append(r.ends, e)
	}
}

func (r *recorder) Waited(string, string, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits++
}

// The observer sees every change of the usage counters (they sum to Usage), one call span per
// call that sent a request (none for a cache hit) with its requests and tokens, and the
// outcome of a call whose answer stayed bad.
func TestObserverSeesWhatUsageCounts(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: badExtract}, {content: validExtract}, {status: 503}, {content: validExtract}}}
	c := newTestClient(t, f, cache.NewMemory(), nil)
	rec := &recorder{}
	c.Observe(rec)
	ctx := context.Background()
	if err := c.Call(ctx, "extract", wire.TaskExtract, sampleExtractInput(), nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "extract", wire.TaskExtract, sampleExtractInput(), nil); err != nil { // a cache hit
		t.Fatal(err)
	}
	in := sampleExtractInput()
	in.Episode.Content += " More."
	if err := c.Call(ctx, "replay", wire.TaskExtract, in, nil); err != nil { // a 503, then an answer
		t.Fatal(err)
	}
	u := c.Usage()
	var sum pacing.StageUsage
	for _, s := range rec.counted {
		sum.Sum(s)
	}
	sum.MaxInFlight = u.Total.MaxInFlight
	if sum != u.Total {
		t.Fatalf("observed %+v, usage %+v", sum, u.Total)
	}
	if got := rec.counted["extract/"+wire.TaskExtract]; got.CacheHits != 1 || got.Calls != 2 || got.InvalidAnswers != 1 {
		t.Fatalf("extract counted %+v", got)
	}
	if len(rec.calls) != 2 || len(rec.ends) != 2 {
		t.Fatalf("%d calls started, %d ended; want 2 (the cache hit sends nothing)", len(rec.calls), len(rec.ends))
	}
	first, second := rec.ends[0], rec.ends[1]
	if first.Outcome != calls.CallOK || first.Usage.Calls != 2 || first.Usage.Retries != 1 || first.Usage.PromptTokens != 200 ||
		first.Usage.ReasoningTokens != 10 {
		t.Fatalf("first call ended %+v", first)
	}
	if second.Usage.Calls != 2 || second.Usage.Retries != 1 || second.Usage.PromptTokens != 100 {
		t.Fatalf("second call ended %+v (a transport retry is a request and a retry)", second)
	}
	if ci := rec.calls[0]; ci.Operation != calls.OperationChat || ci.Stage != "extract" || ci.Task != wire.TaskExtract || ci.MaxTokens == 0 {
		t.Fatalf("call info %+v", ci)
	}
	if rec.waits != 4 {
		t.Fatalf("%d waits for the pacer, want one per request (4)", rec.waits)
	}

	bad := &fakeServer{replies: []reply{{content: badExtract}}}
	c = newTestClient(t, bad, nil, func(o *Options) { o.MaxValidationRetries = -1 })
	rec = &recorder{}
	c.Observe(rec)
	err := c.Call(ctx, "extract", wire.TaskExtract, sampleExtractInput(), nil)
	var ve *wire.ValidationError
	if !errors.As(err, &ve) || len(rec.ends) != 1 || rec.ends[0].Outcome != calls.CallInvalid || rec.ends[0].Err == nil {
		t.Fatalf("err %v, ends %+v", err, rec.ends)
	}
}
