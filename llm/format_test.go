package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestResponseFormats checks each format on the wire, that the task of every request is
// recognised (TaskOf), that RequestKey names the key the answer is cached under, and that the
// answer is validated locally in every format.
func TestResponseFormats(t *testing.T) {
	for _, format := range wire.Formats() {
		t.Run(format, func(t *testing.T) {
			f := &fakeServer{replies: []reply{{content: `{"duplicate_ids":[],"contradictions":"x"}`},
				{content: `{"duplicate_ids":["E0"],"contradictions":[]}`}}}
			mem := cache.NewMemory()
			c := newTestClient(t, f, mem, func(o *Options) { o.ResponseFormat = format })
			in := wire.JudgeInput{ReferenceTime: "2024-01-01T00:00:00Z", New: wire.FactIn{Predicate: "P", Fact: "f"}}
			var out wire.JudgeOutput
			if err := c.Call(context.Background(), "temporal", wire.TaskJudgeFact, in, &out); err != nil || len(out.Duplicates) != 1 {
				t.Fatalf("Call = %+v, %v", out, err)
			}
			if f.count() != 2 {
				t.Fatalf("%d requests; the invalid first answer must be retried in every format", f.count())
			}
			req := f.request(0)
			rf := req.ResponseFormat
			if format != wire.FormatGrammar && req.Grammar != "" {
				t.Errorf("a grammar sent in format %s", format)
			}
			switch format {
			case wire.FormatJSONSchema:
				if rf.Type != "json_schema" || rf.JSONSchema == nil || rf.JSONSchema.Name != wire.TaskJudgeFact || !rf.JSONSchema.Strict ||
					len(rf.Schema) != 0 || strings.Contains(string(rf.JSONSchema.Schema), "maxLength") {
					t.Errorf("response_format %+v", rf)
				}
			case wire.FormatJSONObjectSchema:
				if rf.Type != "json_object" || rf.JSONSchema != nil || !strings.Contains(string(rf.Schema), `"maxLength":32`) {
					t.Errorf("response_format %+v", rf)
				}
			case wire.FormatGrammar:
				if rf != nil || !strings.HasPrefix(req.Grammar, wire.GrammarHeader+wire.TaskJudgeFact+"\n") ||
					!strings.Contains(req.Grammar, `char{0,32}`) {
					t.Errorf("response_format %+v, grammar %q", rf, req.Grammar)
				}
			case wire.FormatJSONObject:
				if rf.Type != "json_object" || rf.JSONSchema != nil || len(rf.Schema) != 0 ||
					!strings.Contains(req.Messages[0].Content, wire.SchemaIntro+wire.TaskJudgeFact+":") {
					t.Errorf("response_format %+v, system message ends %q", rf, tail(req.Messages[0].Content))
				}
			}
			if got := wire.RequestTask(req); got != wire.TaskJudgeFact {
				t.Errorf("RequestTask = %q", got)
			}
			if _, ok, _ := mem.Get(context.Background(), RequestKey(f.request(1))); !ok || mem.Len() != 1 {
				t.Errorf("the answer is not cached under RequestKey of its request (%d entries)", mem.Len())
			}
		})
	}
}

func tail(s string) string { return s[max(0, len(s)-80):] }

// TestWindowRequestGrammar checks that a window request in FormatGrammar carries the grammar of
// its own number of episodes (wire.WindowGrammar), that RequestKey names the key its answer is
// cached under, and that the key differs from that of the task's own grammar, so answers asked
// with another grammar are not reused.
func TestWindowRequestGrammar(t *testing.T) {
	answer := `{"entities":[],"facts_by_episode":[{"n":1,"facts":[]},{"n":2,"facts":[]}]}`
	f := &fakeServer{replies: []reply{{content: answer}}}
	mem := cache.NewMemory()
	c := newTestClient(t, f, mem, func(o *Options) { o.ResponseFormat = wire.FormatGrammar })
	in := wire.WindowInput{Episodes: []wire.WindowEpisodeIn{{N: 1, ReferenceTime: "2024-01-01T00:00:00Z", Content: "a"}, {N: 2, Content: "b"}}}
	var out wire.WindowOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtractWindow, in, &out); err != nil || len(out.Episodes) != 2 {
		t.Fatalf("Call = %+v, %v", out, err)
	}
	req := f.request(0)
	task, err := wire.LookupTask(wire.TaskExtractWindow)
	if err != nil {
		t.Fatal(err)
	}
	want, err := wire.WindowGrammar(task, 2)
	if err != nil {
		t.Fatal(err)
	}
	if req.Grammar != want {
		t.Errorf("the request's grammar is not the window's:\n%s", req.Grammar)
	}
	key := RequestKey(req)
	if _, ok, _ := mem.Get(context.Background(), key); !ok {
		t.Error("the answer is not cached under RequestKey of its request")
	}
	own := CacheKey(req.Model, req.Messages, wire.TaskExtractWindow, task.Raw, req.Temperature, requestExtras(wire.FormatGrammar, req.FrequencyPenalty, "")...)
	if key == own {
		t.Error("the window grammar's key equals the key of the task's own grammar")
	}
}
