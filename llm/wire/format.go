package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Response formats: how a request asks for structured output (Options.ResponseFormat, job key
// llm.response_format). The answer is validated against the task's schema locally in every
// format.
const (
	// FormatJSONSchema sends {"type":"json_schema","json_schema":{"name":TASK,"strict":true,
	// "schema":…}}: OpenAI, Azure, vLLM, Ollama, LM Studio, OpenRouter. The default.
	FormatJSONSchema = "json_schema"
	// FormatJSONObjectSchema sends {"type":"json_object","schema":…} with the maxLength caps of
	// free-text strings: llama.cpp's servers (llama-server and llama-cpp-python, which answer
	// json_schema with HTTP 500), whose grammar-constrained decoder honours maxLength.
	FormatJSONObjectSchema = "json_object_schema"
	// FormatJSONObject sends {"type":"json_object"} and writes the schema into the system
	// message: any server with a JSON mode.
	FormatJSONObject = "json_object"
	// FormatGrammar sends no response_format but a "grammar" (Schema.GBNF, with the maxLength
	// caps): llama.cpp's servers (llama-server, llama-cpp-python), whose decoder then admits
	// only compact JSON, where llama-server's own JSON-schema grammar lets a model indent and
	// break lines.
	FormatGrammar = "grammar"
)

// Formats lists the response formats.
func Formats() []string {
	return []string{FormatJSONSchema, FormatJSONObjectSchema, FormatJSONObject, FormatGrammar}
}

// CheckFormat reports an unknown response format ("" is the default, FormatJSONSchema).
func CheckFormat(f string) error {
	for _, ok := range append(Formats(), "") {
		if f == ok {
			return nil
		}
	}
	return fmt.Errorf("%q is not one of %s", f, strings.Join(Formats(), ", "))
}

// SchemaIntro starts the line that names the task before the schema written into the system
// message in FormatJSONObject; TaskOf reads the name back.
const SchemaIntro = "RESPONSE SCHEMA of "

// ResponseFormat is the response_format of the task's requests in format f.
func (t *Task) ResponseFormat(f string) *ResponseFormat {
	switch f {
	case FormatGrammar:
		return nil
	case FormatJSONObjectSchema:
		return &ResponseFormat{Type: "json_object", Schema: t.Capped}
	case FormatJSONObject:
		return &ResponseFormat{Type: "json_object"}
	}
	return &ResponseFormat{Type: "json_schema", JSONSchema: &JSONSchema{Name: t.Name, Strict: true, Schema: t.Raw}}
}

// PromptSchema is the part of the task's schema a request in format f sends as prompt tokens
// (ResponseFormat.PromptSchema).
func (t *Task) PromptSchema(f string) []byte { return t.ResponseFormat(f).PromptSchema() }

// PromptSchema is the schema a request with this response format sends as prompt tokens: the
// json_schema format's, which OpenAI bills as input and caches as a prefix before the system
// message ("the structured output schema serves as a prefix to the system message and can be
// cached"); nil for the other formats (FormatJSONObject writes the schema into the system
// message, where the messages count it; a llama.cpp server turns FormatJSONObjectSchema and
// FormatGrammar into a grammar, no prompt tokens) and for none.
func (rf *ResponseFormat) PromptSchema() []byte {
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil {
		return nil
	}
	return rf.JSONSchema.Schema
}

// PromptPrefix is a request's prompt as a provider's prefix cache reads it, the one form the
// plan's estimate and the stub compare: the schema the request sends as prompt
// (ResponseFormat.PromptSchema), then each message's role and content, each ended by a zero byte.
func PromptPrefix(schema []byte, msgs []Message) string {
	var b strings.Builder
	b.Write(schema)
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteByte(0)
		b.WriteString(m.Content)
		b.WriteByte(0)
	}
	return b.String()
}

// WithSchema returns the messages of the task's request in format f: in FormatJSONObject the
// server never sees the schema, so the system message ends with it; other formats send msgs as
// they are.
func (t *Task) WithSchema(f string, msgs []Message) []Message {
	if f != FormatJSONObject || len(msgs) == 0 || msgs[0].Role != RoleSystem {
		return msgs
	}
	out := append([]Message(nil), msgs...)
	out[0].Content += "\n\n" + SchemaIntro + t.Name + ": answer with one JSON object that follows this JSON schema.\n" + string(t.Raw)
	return out
}

// TaskOf names the task of a chat request as this package sends it: the json_schema name
// (FormatJSONSchema), else the task whose schema the response_format carries
// (FormatJSONObjectSchema), else the task the system message names after SchemaIntro
// (FormatJSONObject). It is "" for a request of none of these shapes. The offline responder,
// the stub and the test harness recognise requests with it.
func TaskOf(schemaName string, schema json.RawMessage, system string) string {
	if schemaName != "" {
		return schemaName
	}
	if len(schema) > 0 {
		var v any
		if json.Unmarshal(schema, &v) != nil {
			return ""
		}
		for name, s := range taskSchemas() {
			if reflect.DeepEqual(v, s) {
				return name
			}
		}
		return ""
	}
	if _, rest, ok := strings.Cut(system, SchemaIntro); ok {
		name, _, _ := strings.Cut(rest, ":")
		if _, known := taskTypes()[name]; known {
			return name
		}
	}
	return ""
}

// GrammarTask is the task a grammar of Schema.GBNF was written for, or "" when grammar is not
// one.
func GrammarTask(grammar string) string {
	rest, ok := strings.CutPrefix(grammar, GrammarHeader)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "\n")
	if _, known := taskTypes()[name]; !known {
		return ""
	}
	return name
}

// RequestTask is the task of a decoded request: GrammarTask of its grammar, else TaskOf.
func RequestTask(req ChatRequest) string {
	if req.Grammar != "" {
		return GrammarTask(req.Grammar)
	}
	var name, system string
	var schema json.RawMessage
	if rf := req.ResponseFormat; rf != nil {
		schema = rf.Schema
		if rf.JSONSchema != nil {
			name = rf.JSONSchema.Name
		}
	}
	if len(req.Messages) > 0 && req.Messages[0].Role == RoleSystem {
		system = req.Messages[0].Content
	}
	return TaskOf(name, schema, system)
}

// taskSchemas holds every task's capped wire schema, decoded, for TaskOf.
var taskSchemas = sync.OnceValue(func() map[string]any {
	out := map[string]any{}
	for name := range taskTypes() {
		t, err := LookupTask(name)
		if err != nil {
			continue // the package tests build every schema
		}
		var v any
		if json.Unmarshal(t.Capped, &v) == nil {
			out[name] = v
		}
	}
	return out
})
