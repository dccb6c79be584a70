package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

const badExtract = `{"entities":[{"name":"A","type":"Entity","attributes":[]}],"facts":[{"subject":"A","predicate":"KNOWS","object":"A","fact":"x","kind":"state","valid_at":17,"invalid_at":null}]}`

func TestCallSendsStructuredRequest(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: "```json\n" + validExtract + "\n```"}}}
	c := newTestClient(t, f, nil, nil)
	var out wire.ExtractOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Entities) != 1 || out.Entities[0].Name != "Melanie" {
		t.Fatalf("decoded %+v", out)
	}
	req := f.request(0)
	task, _ := wire.LookupTask(wire.TaskExtract)
	rf := req.ResponseFormat
	if req.Model != "test-model" || rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != wire.TaskExtract ||
		!rf.JSONSchema.Strict || string(rf.JSONSchema.Schema) != string(task.Raw) {
		t.Fatalf("request = %+v", req)
	}
	if got := f.headers[0].Get("Authorization"); got != "Bearer sk-test" {
		t.Fatalf("Authorization = %q", got)
	}
	u := c.Usage()
	want := pacing.StageUsage{Calls: 1, PromptTokens: 100, CompletionTokens: 20, ReasoningTokens: 5, MaxInFlight: 1}
	if u.Stages["extract"] != want || u.Total != want {
		t.Fatalf("usage = %+v", u)
	}
}

func TestCallTemperatureOnTheWire(t *testing.T) {
	var raw []byte
	h := recordBody(&raw, validExtract)
	c := newTestClient(t, h, nil, nil)
	if err := c.Call(context.Background(), "s", wire.TaskExtract, sampleExtractInput(), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"temperature":0`) {
		t.Fatalf("temperature 0 not sent: %s", raw)
	}
}

// TestCallFrequencyPenalty: a frequency penalty goes on the wire and into the cache key (the
// client's and the one a server computes from the request, RequestKey); without one the request
// carries none and the key is the one answers were cached under before the option existed.
func TestCallFrequencyPenalty(t *testing.T) {
	for _, penalty := range []float64{0, 0.5} {
		var raw []byte
		mem := cache.NewMemory()
		c := newTestClient(t, recordBody(&raw, validExtract), mem, func(o *Options) { o.FrequencyPenalty = penalty })
		if err := c.Call(context.Background(), "s", wire.TaskExtract, sampleExtractInput(), nil); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(raw), `"frequency_penalty":0.5`); got != (penalty != 0) || penalty == 0 && strings.Contains(string(raw), "frequency_penalty") {
			t.Fatalf("penalty %v: request %s", penalty, raw)
		}
		var req wire.ChatRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			t.Fatal(err)
		}
		key := RequestKey(req)
		if _, ok, _ := mem.Get(context.Background(), key); !ok {
			t.Fatalf("penalty %v: the answer is not cached under the request's key", penalty)
		}
		old := CacheKey(req.Model, req.Messages, wire.TaskExtract, c.tasks[wire.TaskExtract].Raw, 0, "format="+wire.FormatJSONSchema)
		if (key == old) != (penalty == 0) {
			t.Errorf("penalty %v: key %s, key without the option %s", penalty, key, old)
		}
	}
}

func TestCallValidationRetryFeedsErrorBack(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: badExtract}, {content: validExtract}}}
	mem := cache.NewMemory()
	c := newTestClient(t, f, mem, nil)
	var out wire.ExtractOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), &out); err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 {
		t.Fatalf("%d requests, want 2", f.count())
	}
	retry := f.request(1).Messages
	last := retry[len(retry)-1].Content
	if !strings.HasPrefix(last, "Your previous answer was rejected: facts[0].valid_at: expected string or null") {
		t.Fatalf("feedback missing: %q", last[:min(len(last), 200)])
	}
	if !strings.HasSuffix(last, "\n```") || !strings.Contains(last, wire.InputFence) {
		t.Fatal("retry message does not end with the fenced input")
	}
	if len(retry) != len(f.request(0).Messages) {
		t.Fatalf("retry has %d messages, first had %d", len(retry), len(f.request(0).Messages))
	}
	u := c.Usage().Stages["extract"]
	if u.Calls != 2 || u.Retries != 1 || u.InvalidAnswers != 1 || u.PromptTokens != 200 {
		t.Fatalf("usage = %+v", u)
	}
	if mem.Len() != 1 {
		t.Fatalf("cache holds %d entries, want 1", mem.Len())
	}
}

func TestCallValidationGivesUp(t *testing.T) {
	for _, tt := range []struct {
		name    string
		retries int
		want    int
		rep     reply
	}{
		{"bad schema", 0, 3, reply{content: badExtract}},
		{"one retry", 1, 2, reply{content: badExtract}},
		{"no retries", -1, 1, reply{content: badExtract}},
		{"not a chat response", 0, 3, reply{body: "<html>oops</html>"}},
		{"refusal", 0, 3, reply{body: `{"choices":[{"message":{"role":"assistant","content":"","refusal":"no"}}]}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{replies: []reply{tt.rep}}
			mem := cache.NewMemory()
			c := newTestClient(t, f, mem, func(o *Options) { o.MaxValidationRetries = tt.retries })
			err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), nil)
			var ve *wire.ValidationError
			if !errors.As(err, &ve) || ve.Attempts != tt.want {
				t.Fatalf("error = %v, want wire.ValidationError after %d attempts", err, tt.want)
			}
			if f.count() != tt.want || mem.Len() != 0 {
				t.Fatalf("%d requests, %d cached", f.count(), mem.Len())
			}
			if transport.IsFatal(err) || transport.IsRetryable(err) {
				t.Fatal("validation error classified as fatal or retryable")
			}
		})
	}
}

func TestCacheHitMakesNoRequest(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: validExtract}}}
	mem := cache.NewMemory()
	c := newTestClient(t, f, mem, nil)
	ctx := context.Background()
	for _, stage := range []string{"extract", "extract", "replay"} {
		var out wire.ExtractOutput
		if err := c.Call(ctx, stage, wire.TaskExtract, sampleExtractInput(), &out); err != nil {
			t.Fatal(err)
		}
		if len(out.Entities) != 1 {
			t.Fatalf("decoded %+v", out)
		}
	}
	if f.count() != 1 {
		t.Fatalf("%d requests, want 1", f.count())
	}
	u := c.Usage()
	if u.Total.CacheHits != 2 || u.Stages["replay"].CacheHits != 1 || u.Total.Calls != 1 {
		t.Fatalf("usage = %+v", u)
	}
	// A changed input is a miss.
	in := sampleExtractInput()
	in.Episode.Content += " More."
	if err := c.Call(ctx, "extract", wire.TaskExtract, in, nil); err != nil || f.count() != 2 {
		t.Fatalf("changed input: err %v, %d requests", err, f.count())
	}
}

func TestCacheEntryFailingSchemaIsAMiss(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: validExtract}}}
	mem := cache.NewMemory()
	c := newTestClient(t, f, mem, nil)
	msgs, _ := c.Prompts().Render(wire.TaskExtract, sampleExtractInput())
	task, _ := wire.LookupTask(wire.TaskExtract)
	key := c.cacheKey(task, msgs)
	_ = mem.Put(context.Background(), key, cache.Entry{Response: []byte(badExtract)})
	if err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), nil); err != nil {
		t.Fatal(err)
	}
	e, _, _ := mem.Get(context.Background(), key)
	if f.count() != 1 || string(e.Response) != validExtract || e.Namespace != "extract" || e.PromptTokens != 100 {
		t.Fatalf("%d requests, entry %+v", f.count(), e)
	}
}

func TestCacheKey(t *testing.T) {
	msgs := []wire.Message{{Role: wire.RoleSystem, Content: "ab"}, {Role: wire.RoleUser, Content: "c"}}
	base := CacheKey("m", msgs, "t", []byte("{}"), 0)
	if base != CacheKey("m", msgs, "t", []byte("{}"), 0) || len(base) != 64 {
		t.Fatal("key not stable")
	}
	for name, k := range map[string]string{
		"model":       CacheKey("m2", msgs, "t", []byte("{}"), 0),
		"split":       CacheKey("m", []wire.Message{{Role: wire.RoleSystem, Content: "a"}, {Role: wire.RoleUser, Content: "bc"}}, "t", []byte("{}"), 0),
		"role":        CacheKey("m", []wire.Message{{Role: wire.RoleUser, Content: "ab"}, {Role: wire.RoleUser, Content: "c"}}, "t", []byte("{}"), 0),
		"schema name": CacheKey("m", msgs, "t2", []byte("{}"), 0),
		"schema":      CacheKey("m", msgs, "t", []byte(`{"a":1}`), 0),
		"temperature": CacheKey("m", msgs, "t", []byte("{}"), 0.2),
		"extra":       CacheKey("m", msgs, "t", []byte("{}"), 0, "max_tokens=10"),
	} {
		if k == base {
			t.Errorf("changing %s kept the key", name)
		}
	}
}

// TestTaskVersion: the version separates tasks and changes with every request parameter that can
// change an answer (model, temperature, prompt templates, schema), and with nothing else.
func TestTaskVersion(t *testing.T) {
	base := NewClient(Options{Model: "a"}, nil, nil, nil)
	v := base.TaskVersion(wire.TaskExtract)
	if v != NewClient(Options{Model: "a", MaxAttempts: 9}, nil, nil, nil).TaskVersion(wire.TaskExtract) {
		t.Fatal("task version not stable, or changed by a transport setting")
	}
	if v == base.TaskVersion(wire.TaskJudgeFact) {
		t.Fatal("task version does not separate tasks")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, wire.TaskExtract+".system.tmpl"), []byte("Extract."), 0o644); err != nil {
		t.Fatal(err)
	}
	prompts, err := wire.LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	schema := NewClient(Options{Model: "a"}, nil, nil, nil)
	changed := *schema.tasks[wire.TaskExtract]
	changed.Raw = append(append([]byte(nil), changed.Raw...), ' ')
	schema.tasks[wire.TaskExtract] = &changed
	for name, c := range map[string]*Client{
		"model":             NewClient(Options{Model: "b"}, nil, nil, nil),
		"temperature":       NewClient(Options{Model: "a", Temperature: 0.5}, nil, nil, nil),
		"prompt":            NewClient(Options{Model: "a"}, nil, prompts, nil),
		"schema":            schema,
		"format":            NewClient(Options{Model: "a", ResponseFormat: wire.FormatJSONObjectSchema}, nil, nil, nil),
		"max_tokens":        NewClient(Options{Model: "a", MaxTokens: map[string]int{wire.TaskExtract: 100}}, nil, nil, nil),
		"frequency penalty": NewClient(Options{Model: "a", FrequencyPenalty: 0.5}, nil, nil, nil),
	} {
		if c.TaskVersion(wire.TaskExtract) == v {
			t.Errorf("a %s change keeps the task version", name)
		}
		if name == "prompt" || name == "schema" {
			if c.TaskVersion(wire.TaskJudgeFact) != base.TaskVersion(wire.TaskJudgeFact) {
				t.Errorf("a %s change of %s changed the version of %s", name, wire.TaskExtract, wire.TaskJudgeFact)
			}
		}
	}
}

// recordBody returns a handler that stores the last request body and answers content.
func recordBody(dst *[]byte, content string) *bodyRecorder {
	return &bodyRecorder{dst: dst, fake: &fakeServer{replies: []reply{{content: content}}}}
}
