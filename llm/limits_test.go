package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

func TestMaxTokensSentAndOverridden(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	c := newTestClient(t, f, nil, nil)
	ctx := context.Background()
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.request(0).MaxTokens; got != 64 {
		t.Errorf("name_community max_tokens = %d, want its rule's 64", got)
	}
	msgs, _ := c.Prompts().Render(wire.TaskExtract, sampleExtractInput())
	small := c.MaxTokens(wire.TaskExtract, msgs)
	in := sampleExtractInput()
	in.Episode.Content = strings.Repeat("A long episode. ", 400)
	msgs, _ = c.Prompts().Render(wire.TaskExtract, in)
	if big := c.MaxTokens(wire.TaskExtract, msgs); big <= small || big > MaxTokensCap {
		t.Errorf("max_tokens %d for a long input, %d for a short one: want more, at most %d", big, small, MaxTokensCap)
	}
	o := newTestClient(t, f, nil, func(o *Options) { o.MaxTokens = map[string]int{wire.TaskNameCommunity: 7} })
	if err := o.Call(ctx, "community", wire.TaskNameCommunity, wire.NameInput{Summary: "t"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.request(1).MaxTokens; got != 7 {
		t.Errorf("overridden max_tokens = %d, want 7", got)
	}
	if CheckMaxTokens(map[string]int{wire.TaskExtract: 10}) != nil || CheckMaxTokens(map[string]int{"poem": 10}) == nil ||
		CheckMaxTokens(map[string]int{wire.TaskExtract: 0}) == nil {
		t.Error("CheckMaxTokens")
	}
}

// TestLengthRetry: an answer cut at max_tokens is asked again once with twice the limit; cut
// again, it counts as invalid, with a message saying so fed back.
func TestLengthRetry(t *testing.T) {
	cut := reply{content: `{"name":"a very long na`, finish: wire.FinishLength}
	f := &fakeServer{replies: []reply{cut, {content: `{"name":"n"}`, finish: "stop"}}}
	c := newTestClient(t, f, nil, nil)
	if err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 || f.request(1).MaxTokens != 2*f.request(0).MaxTokens {
		t.Fatalf("%d requests, max_tokens %d then %d; want one retry with twice the limit", f.count(), f.request(0).MaxTokens, f.request(1).MaxTokens)
	}
	if wire.StripFeedback(f.request(1).Messages[1].Content) != f.request(1).Messages[1].Content {
		t.Error("the length retry fed a validation error back")
	}
	if u := c.Usage().Stages["community"]; u.Truncated != 1 || u.Retries != 1 || u.InvalidAnswers != 0 {
		t.Errorf("usage %+v", u)
	}

	f = &fakeServer{replies: []reply{cut}}
	c = newTestClient(t, f, nil, nil)
	err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil)
	var v *wire.ValidationError
	if !errors.As(err, &v) || !transport.IsBadAnswer(err) || !strings.Contains(err.Error(), "cut at the length limit") || string(v.Raw) != cut.content {
		t.Fatalf("error %v (raw %q); want a wire.ValidationError about the length limit with the raw answer", err, v.Raw)
	}
	// 1 request, 1 raised, then 2 validation retries at the raised limit.
	if f.count() != 4 || v.Attempts != 4 || !strings.Contains(f.request(2).Messages[1].Content, "shorter answer") {
		t.Errorf("%d requests, attempts %d", f.count(), v.Attempts)
	}
	if u := c.Usage().Stages["community"]; u.Truncated != 4 || u.InvalidAnswers != 3 {
		t.Errorf("usage %+v", u)
	}
}

func TestEmptyAnswerIsInvalid(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: "  "}}}
	c := newTestClient(t, f, nil, func(o *Options) { o.MaxValidationRetries = -1 })
	err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil)
	if !transport.IsBadAnswer(err) || !strings.Contains(err.Error(), "empty answer") {
		t.Fatalf("error %v", err)
	}
}

func TestStatusErrorIsABadAnswer(t *testing.T) {
	f := &fakeServer{replies: []reply{{status: 400, body: `{"error":{"message":"too long","type":"invalid_request_error"}}`}}}
	c := newTestClient(t, f, nil, nil)
	err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil)
	if !transport.IsBadAnswer(err) || transport.IsFatal(err) {
		t.Fatalf("error %v: want a bad answer", err)
	}
	if transport.IsBadAnswer(&transport.TransientError{Status: 500}) || transport.IsBadAnswer(&transport.AuthError{Status: 401}) {
		t.Error("service failures are not bad answers")
	}
}

// TestPacerStop: once Stop closes, no request starts, including one waiting for a slot.
func TestPacerStop(t *testing.T) {
	stop := make(chan struct{})
	p := pacing.NewPacer(pacing.PacerOptions{Concurrency: 1, Stop: stop})
	ctx := context.Background()
	if err := p.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() { waiting <- p.Acquire(ctx, 1) }()
	time.Sleep(10 * time.Millisecond)
	close(stop)
	select {
	case err := <-waiting:
		if !errors.Is(err, pacing.ErrStopped) {
			t.Fatalf("waiting request: %v, want ErrStopped", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request waiting for a slot did not stop")
	}
	p.Release()
	if err := p.Acquire(ctx, 1); !errors.Is(err, pacing.ErrStopped) {
		t.Fatalf("after stop: %v, want ErrStopped", err)
	}
	f := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	c := newTestClient(t, f, nil, func(o *Options) { o.Pacer = p })
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, wire.NameInput{Summary: "s"}, nil); !errors.Is(err, pacing.ErrStopped) || f.count() != 0 {
		t.Fatalf("Call after stop: %v, %d requests", err, f.count())
	}
}
