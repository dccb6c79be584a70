package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

func TestRetryAfterHonoured(t *testing.T) {
	for _, tt := range []struct {
		name   string
		header map[string]string
		least  time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "1"}, time.Second},
		{"milliseconds", map[string]string{"Retry-After-Ms": "300"}, 300 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{replies: []reply{
				{status: http.StatusTooManyRequests, header: tt.header, body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`},
				{content: validExtract},
			}}
			c := newTestClient(t, f, nil, nil)
			start := time.Now()
			if err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), nil); err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed < tt.least {
				t.Fatalf("retried after %v, want at least %v", elapsed, tt.least)
			}
			if u := c.Usage().Total; f.count() != 2 || u.Retries != 1 || u.Calls != 2 {
				t.Fatalf("%d requests, usage %+v", f.count(), u)
			}
		})
	}
}

func TestStatusClassification(t *testing.T) {
	quota := `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`
	for _, tt := range []struct {
		name      string
		rep       reply
		requests  int
		fatal     bool
		retryable bool
		target    any
	}{
		{"401", reply{status: 401, body: `{"error":{"message":"bad key"}}`}, 1, true, false, new(*transport.AuthError)},
		{"403", reply{status: 403, body: `forbidden`}, 1, true, false, new(*transport.AuthError)},
		{"quota on 429", reply{status: 429, body: quota}, 1, true, false, new(*transport.QuotaError)},
		{"400", reply{status: 400, body: `{"error":{"message":"context too long","code":"context_length_exceeded"}}`}, 1, false, false, new(*transport.StatusError)},
		{"500 always", reply{status: 500, body: `boom`}, 3, false, true, new(*transport.TransientError)},
		{"503 always", reply{status: 503, body: `{"error":{"message":"overloaded"}}`}, 3, false, true, new(*transport.TransientError)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{replies: []reply{tt.rep}}
			c := newTestClient(t, f, nil, func(o *Options) { o.MaxAttempts = 3 })
			err := c.Call(context.Background(), "s", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if f.count() != tt.requests || transport.IsFatal(err) != tt.fatal || transport.IsRetryable(err) != tt.retryable {
				t.Fatalf("%d requests, fatal=%v retryable=%v: %v", f.count(), transport.IsFatal(err), transport.IsRetryable(err), err)
			}
			if !errors.As(err, tt.target) {
				t.Fatalf("error %T does not unwrap to %T", err, tt.target)
			}
		})
	}
}

func TestTransientThenSuccess(t *testing.T) {
	f := &fakeServer{replies: []reply{{status: 502, body: "bad gateway"}, {status: 500}, {content: `{"name":"Art"}`}}}
	c := newTestClient(t, f, nil, nil)
	var out wire.NameOutput
	if err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "Art" || c.Usage().Total.Retries != 2 || c.Usage().Total.Calls != 3 {
		t.Fatalf("out %+v usage %+v", out, c.Usage().Total)
	}
}

// TestAPIKeyNeverInErrors plants a key and a server that echoes every request header back in
// its error bodies; no error string may contain the key.
func TestAPIKeyNeverInErrors(t *testing.T) {
	const key = "sk-planted-7f3a9c1e5b"
	echo := func(status int, wrap bool) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var b strings.Builder
			for k, v := range r.Header {
				fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(v, ","))
			}
			w.WriteHeader(status)
			if wrap {
				fmt.Fprintf(w, `{"error":{"message":%q,"code":%q}}`, b.String(), r.Header.Get("Authorization"))
				return
			}
			io.WriteString(w, b.String())
		})
	}
	for _, tt := range []struct {
		name   string
		status int
		wrap   bool
	}{
		{"401 raw", 401, false}, {"401 json", 401, true}, {"400 json", 400, true},
		{"500 raw", 500, false}, {"429 json", 429, true}, {"404 raw", 404, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, echo(tt.status, tt.wrap), nil, func(o *Options) { o.APIKey = key; o.MaxAttempts = 2 })
			err := c.Call(context.Background(), "s", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), transport.Redacted) {
				t.Fatalf("error leaks or does not show the redaction: %v", err)
			}
			for e := err; e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), key) {
					t.Fatalf("wrapped %T leaks the key: %v", e, e)
				}
			}
		})
	}
}

func TestPerAttemptTimeoutIsRetried(t *testing.T) {
	var mu sync.Mutex
	n := 0
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if first {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		(&fakeServer{replies: []reply{{content: `{"name":"ok"}`}}}).ServeHTTP(w, r)
	})
	c := newTestClient(t, h, nil, func(o *Options) { o.Timeout = 100 * time.Millisecond })
	t.Cleanup(func() { close(release) }) // runs before the server closes
	start := time.Now()
	if err := c.Call(context.Background(), "s", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Second || c.Usage().Total.Retries != 1 {
		t.Fatalf("took %v, usage %+v", time.Since(start), c.Usage().Total)
	}
}

func TestCancelStopsRetrying(t *testing.T) {
	f := &fakeServer{replies: []reply{{status: 429, header: map[string]string{"Retry-After": "30"}, body: "later"}}}
	c := newTestClient(t, f, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Call(ctx, "s", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

func TestConcurrencyBound(t *testing.T) {
	var mu sync.Mutex
	cur, peak := 0, 0
	fake := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cur++
		peak = max(peak, cur)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
		mu.Lock()
		cur--
		mu.Unlock()
		fake.ServeHTTP(w, r)
	})
	c := newTestClient(t, h, nil, func(o *Options) { o.Concurrency = 3 })
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Go(func() {
			if err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: fmt.Sprint(i)}, nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	u := c.Usage()
	if peak > 3 || u.Total.MaxInFlight > 3 || u.Total.MaxInFlight < 2 || u.Stages["community"].MaxInFlight != u.Total.MaxInFlight {
		t.Fatalf("server peak %d, usage %+v", peak, u)
	}
	if u.Total.Calls != 12 {
		t.Fatalf("calls = %d", u.Total.Calls)
	}
}
