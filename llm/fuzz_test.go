package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// answerSeeds are answer texts worth starting from: valid and almost valid answers, fences,
// and things that are not answers at all.
var answerSeeds = []string{
	`{"entities":[{"name":"Alice","type":"Entity","attributes":[]}],"facts":[]}`,
	"```json\n{\"entities\":[],\"facts\":[]}\n```",
	`{"entities":[],"facts":[{"subject":"A","predicate":"WORKS_AT","object":"B","fact":"A works at B.","kind":"state","valid_at":null,"invalid_at":null}]}`,
	`{"duplicate_of":[],"contradicts":[]}`, `{"summaries":[]}`, `{"summary":"x"}`, `{"name":"n","summary":"s"}`,
	`{}`, `[]`, `null`, `"text"`, `1e999`, "```", "``````", "```json\n```", `{"entities":null}`,
	`{"entities":[],"facts":[],"extra":1}`, `{"entities":[{}]}`, "{\"a\":\"\xff\"}", `{"x":1} {"y":2}`,
	`{"entities":[],"facts":[` + `{"subject":1}` + `]}`,
}

// stubHandler answers every chat request with one fixed body (status 200).
type stubHandler []byte

func (h stubHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(h)
}

// callWith runs Client.Call for task against a server that always answers body, with a fresh
// cache, and checks the contract: no panic; success exactly when want says so (nil: either);
// a successful answer decoded and cached, a failed one never cached.
func callWith(t *testing.T, prompts *wire.Prompts, task *wire.Task, body []byte, want *bool) {
	t.Helper()
	mem := cache.NewMemory()
	c := NewClient(Options{BaseURL: "http://fuzz/v1", Model: "fuzz", MaxAttempts: 1, MaxValidationRetries: 1},
		transport.NewInProcessHTTPClient(stubHandler(body)), prompts, mem)
	input := reflect.New(task.Input).Interface()
	out := reflect.New(task.Output).Interface()
	err := c.Call(context.Background(), "fuzz", task.Name, input, out)
	if want != nil && (err == nil) != *want {
		t.Fatalf("%s: Call error %v, want success %v for body %q", task.Name, err, *want, body)
	}
	if err != nil {
		var ve *wire.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: Call error %v (%T), want a *wire.ValidationError", task.Name, err, err)
		}
		if mem.Len() != 0 {
			t.Fatalf("%s: an answer that failed validation was cached", task.Name)
		}
		return
	}
	msgs, rerr := prompts.Render(task.Name, input)
	if rerr != nil {
		t.Fatal(rerr)
	}
	e, ok, _ := mem.Get(context.Background(), c.cacheKey(task, msgs))
	if !ok || task.Schema.Validate(e.Response) != nil {
		t.Fatalf("%s: a successful answer is not cached valid (cached %v)", task.Name, ok)
	}
}

// FuzzDecodeAnswer feeds any answer text, for every task, through the path an answer takes:
// fence stripping, schema validation and decoding into the task's output type, then the same
// through Client.Call. An answer that passes validation must decode; Call must succeed exactly
// for such answers, cache them, and never cache another.
func FuzzDecodeAnswer(f *testing.F) {
	for i, s := range answerSeeds {
		f.Add(uint8(i), s)
	}
	prompts, err := wire.LoadPrompts("")
	if err != nil {
		f.Fatal(err)
	}
	names := wire.Tasks()
	f.Fuzz(func(t *testing.T, which uint8, content string) {
		task, err := wire.LookupTask(names[int(which)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		resp := wire.ChatResponse{Choices: []wire.Choice{{Message: wire.ChatMessage{Role: wire.RoleAssistant, Content: content}}}}
		answer, bad := answerText(resp)
		valid := bad == nil && task.Schema.Validate(answer) == nil
		if valid {
			if err := decode(task.Name, answer, reflect.New(task.Output).Interface()); err != nil {
				t.Fatalf("%s: answer %q passed validation but does not decode: %v", task.Name, answer, err)
			}
		}
		body, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		callWith(t, prompts, task, body, &valid)
	})
}

// FuzzChatResponseBody feeds any HTTP 200 body to Client.Call: it must answer or fail with a
// validation error, never panic, and cache only valid answers.
func FuzzChatResponseBody(f *testing.F) {
	for i, s := range answerSeeds {
		b, _ := json.Marshal(wire.ChatResponse{Choices: []wire.Choice{{Message: wire.ChatMessage{Role: wire.RoleAssistant, Content: s}}}})
		f.Add(uint8(i), b)
	}
	for _, s := range []string{`{}`, `{"choices":[]}`, `{"choices":[{"message":{"refusal":"no"}}]}`, `{"choices":null}`,
		`{"choices":[{"message":{"content":7}}]}`, `not json`, ``, `{"choices":[{}],"usage":{"prompt_tokens":-5}}`} {
		f.Add(uint8(0), []byte(s))
	}
	prompts, err := wire.LoadPrompts("")
	if err != nil {
		f.Fatal(err)
	}
	names := wire.Tasks()
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		task, err := wire.LookupTask(names[int(which)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		callWith(t, prompts, task, body, nil)
	})
}

// TestAnswerSeedsReachBothPaths keeps the fuzz seeds useful: some answer validates (so the
// success path of FuzzDecodeAnswer runs on every `go test`) and some does not.
func TestAnswerSeedsReachBothPaths(t *testing.T) {
	valid, invalid := 0, 0
	for _, name := range wire.Tasks() {
		task, err := wire.LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range answerSeeds {
			answer, bad := answerText(wire.ChatResponse{Choices: []wire.Choice{{Message: wire.ChatMessage{Content: s}}}})
			if bad == nil && task.Schema.Validate(answer) == nil {
				valid++
			} else {
				invalid++
			}
		}
	}
	if valid == 0 || invalid == 0 {
		t.Fatalf("%d valid and %d invalid seed answers; want both", valid, invalid)
	}
}

// FuzzSalvage feeds any cut answer, for every task, to salvage: it must not panic, and an
// answer it salvages must pass the task's schema and decode.
func FuzzSalvage(f *testing.F) {
	for i, s := range answerSeeds {
		f.Add(uint8(i), s[:len(s)*2/3])
		f.Add(uint8(i), s)
	}
	names := wire.Tasks()
	f.Fuzz(func(t *testing.T, which uint8, cut string) {
		task, err := wire.LookupTask(names[int(which)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		answer, repeats, ok := salvage(task, []byte(cut))
		if !ok {
			return
		}
		if err := task.Schema.Validate(answer); err != nil || repeats < 0 {
			t.Fatalf("%s: salvage of %q gave %q (%d repeats), invalid: %v", task.Name, cut, answer, repeats, err)
		}
		if err := decode(task.Name, answer, reflect.New(task.Output).Interface()); err != nil {
			t.Fatalf("%s: salvaged answer %q does not decode: %v", task.Name, answer, err)
		}
	})
}
