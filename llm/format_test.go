package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestResponseFormats checks each format on the wire, that the task of every request is
// recognised (TaskOf), that RequestKey names the key the answer is cached under, and that the
// answer is validated locally in every format.
func TestResponseFormats(t *testing.T) {
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			f := &fakeServer{replies: []reply{{content: `{"duplicate_ids":[],"contradictions":"x"}`},
				{content: `{"duplicate_ids":["E0"],"contradictions":[]}`}}}
			cache := NewMemoryCache()
			c := newTestClient(t, f, cache, func(o *Options) { o.ResponseFormat = format })
			in := JudgeInput{ReferenceTime: "2024-01-01T00:00:00Z", New: FactIn{Predicate: "P", Fact: "f"}}
			var out JudgeOutput
			if err := c.Call(context.Background(), "temporal", TaskJudgeFact, in, &out); err != nil || len(out.Duplicates) != 1 {
				t.Fatalf("Call = %+v, %v", out, err)
			}
			if f.count() != 2 {
				t.Fatalf("%d requests; the invalid first answer must be retried in every format", f.count())
			}
			req := f.request(0)
			rf := req.ResponseFormat
			switch format {
			case FormatJSONSchema:
				if rf.Type != "json_schema" || rf.JSONSchema == nil || rf.JSONSchema.Name != TaskJudgeFact || !rf.JSONSchema.Strict ||
					len(rf.Schema) != 0 || strings.Contains(string(rf.JSONSchema.Schema), "maxLength") {
					t.Errorf("response_format %+v", rf)
				}
			case FormatJSONObjectSchema:
				if rf.Type != "json_object" || rf.JSONSchema != nil || !strings.Contains(string(rf.Schema), `"maxLength":32`) {
					t.Errorf("response_format %+v", rf)
				}
			case FormatJSONObject:
				if rf.Type != "json_object" || rf.JSONSchema != nil || len(rf.Schema) != 0 ||
					!strings.Contains(req.Messages[0].Content, SchemaIntro+TaskJudgeFact+":") {
					t.Errorf("response_format %+v, system message ends %q", rf, tail(req.Messages[0].Content))
				}
			}
			if got := RequestTask(req); got != TaskJudgeFact {
				t.Errorf("RequestTask = %q", got)
			}
			if _, ok, _ := cache.Get(context.Background(), RequestKey(f.request(1))); !ok || cache.Len() != 1 {
				t.Errorf("the answer is not cached under RequestKey of its request (%d entries)", cache.Len())
			}
		})
	}
}

func tail(s string) string { return s[max(0, len(s)-80):] }

func TestTaskOfUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, system string
		schema       json.RawMessage
	}{{"no format", "You are helpful.", nil}, {"other schema", "", json.RawMessage(`{"type":"object"}`)},
		{"bad schema", "", json.RawMessage(`{`)}, {"unknown name in system", SchemaIntro + "poem: write", nil}} {
		if got := TaskOf("", tc.schema, tc.system); got != "" {
			t.Errorf("%s: TaskOf = %q, want none", tc.name, got)
		}
	}
	if CheckFormat("json_schema") != nil || CheckFormat("") != nil || CheckFormat("xml") == nil {
		t.Error("CheckFormat")
	}
}

func TestSchemaCapsOnlyOnCappedWire(t *testing.T) {
	for key, n := range schemaCaps() {
		if n < 1 || n > maxStringCap {
			t.Errorf("cap of %s is %d, outside 1..%d (llama.cpp refuses longer bounded strings)", key, n, maxStringCap)
		}
	}
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(task.Raw), "maxLength") {
			t.Errorf("%s: the json_schema wire schema carries maxLength", name)
		}
		// Every answer with a free-text string caps it (grade_answer's is a single boolean).
		if strings.Contains(string(task.Raw), `"string"`) && !strings.Contains(string(task.Capped), "maxLength") {
			t.Errorf("%s: no free-text string is capped", name)
		}
		// Caps guard decoding; they do not judge answers.
		if name == TaskNameCommunity {
			if err := task.Schema.Validate([]byte(`{"name":"` + strings.Repeat("x", 500) + `"}`)); err != nil {
				t.Errorf("a long name fails validation: %v", err)
			}
		}
	}
}
