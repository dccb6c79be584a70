package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/providers/offline"
)

// GraphitiRule answers one kind of graphiti-core request. A chat request is of Task, the name
// of its response model (graphiti-core's json_schema name, or the schema's title once
// scripts/graphiti_shim.py turned it into llama.cpp's json_object form: ExtractedEntities,
// ExtractedEdges, NodeResolutions, EdgeDuplicate, SummarizedEntities, …). It matches when the
// text between <Section> and </Section> of its last user message (the whole message when
// Section is "") contains Contains; Answer is the JSON the stub returns, or, when Reply is set,
// what Reply makes of the whole user message (for answers that depend on how graphiti-core
// numbered its candidates, say).
type GraphitiRule struct {
	Task, Section, Contains, Answer string
	Reply                           func(user string) string
}

// GraphitiStub is a loopback OpenAI-compatible server that answers graphiti-core's prompts from
// a script, so a test can have graphiti-core itself write a known graph. The first rule that
// matches a chat request answers it; a request that none matches gets the smallest answer its
// schema allows (empty lists, empty strings, 0, false), and is counted in Unscripted. Embeddings
// come from the offline provider's hashing embedder (the jobs' offline embedder), so backfill
// embeds questions as the graph's facts were embedded.
type GraphitiStub struct {
	URL   string // base URL, ending in /v1
	rules []GraphitiRule
	embed http.Handler
	mu    sync.Mutex
	calls map[string]int
	// unscripted lists "TASK: first 80 bytes of the focus text" of the requests no rule matched.
	unscripted []string
}

// StartGraphitiStub serves the rules on loopback until the test ends; dims is the embedding
// size.
func StartGraphitiStub(t testing.TB, dims int, rules ...GraphitiRule) *GraphitiStub {
	t.Helper()
	s := &GraphitiStub{rules: rules, embed: offline.NewHandler(offline.Options{Dims: dims}), calls: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// Calls is the number of chat requests by task.
func (s *GraphitiStub) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.calls))
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

// Unscripted lists the chat requests that got the schema's smallest answer.
func (s *GraphitiStub) Unscripted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unscripted...)
}

type graphitiRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat struct {
		Type       string          `json:"type"`
		Schema     json.RawMessage `json:"schema"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func (s *GraphitiStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/embeddings") {
		s.embed.ServeHTTP(w, r)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "graphiti stub: no such endpoint "+r.URL.Path, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req graphitiRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, "graphiti stub: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	schema := req.ResponseFormat.JSONSchema.Schema
	task := req.ResponseFormat.JSONSchema.Name
	if len(schema) == 0 {
		schema = req.ResponseFormat.Schema
		var titled struct {
			Title string `json:"title"`
		}
		_ = json.Unmarshal(schema, &titled) // a schema without a title leaves the task unnamed
		task = titled.Title
	}
	user := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	answer, scripted := s.answer(task, user)
	if !scripted {
		if answer, err = smallestAnswer(schema); err != nil {
			http.Error(w, "graphiti stub: "+task+": "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	s.mu.Lock()
	s.calls[task]++
	if !scripted {
		s.unscripted = append(s.unscripted, task+": "+clip(focus(user, ""), 80))
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "graphiti-stub", "object": "chat.completion", "model": "graphiti-stub",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer}}},
		"usage": map[string]int{"prompt_tokens": len(body) / 4, "completion_tokens": len(answer) / 4,
			"total_tokens": len(body)/4 + len(answer)/4},
	})
}

func (s *GraphitiStub) answer(task, user string) (string, bool) {
	for _, r := range s.rules {
		if r.Task == task && strings.Contains(focus(user, r.Section), r.Contains) {
			if r.Reply != nil {
				return r.Reply(user), true
			}
			return r.Answer, true
		}
	}
	return "", false
}

// focus is the text between <section> and </section> of msg, or msg when section is "" or
// absent.
func focus(msg, section string) string {
	if section == "" {
		return msg
	}
	_, rest, ok := strings.Cut(msg, "<"+section+">")
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, "</"+section+">")
	return in
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n]
	}
	return s
}

// smallestAnswer is the smallest JSON value the schema allows: an object of its required
// properties, each the smallest of its own schema; [] for an array, "" for a string, 0 for a
// number, false for a boolean, null where null is allowed.
func smallestAnswer(raw json.RawMessage) (string, error) {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return "", fmt.Errorf("reading the response schema: %w", err)
	}
	defs, _ := root["$defs"].(map[string]any)
	v, err := smallest(root, defs, 0)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func smallest(s map[string]any, defs map[string]any, depth int) (any, error) {
	if depth > 32 {
		return nil, fmt.Errorf("schema nested too deep")
	}
	if ref, ok := s["$ref"].(string); ok {
		d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("unknown $ref %s", ref)
		}
		return smallest(d, defs, depth+1)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && m["type"] == "null" {
				return nil, nil
			}
		}
		if len(alts) > 0 {
			if m, ok := alts[0].(map[string]any); ok {
				return smallest(m, defs, depth+1)
			}
		}
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			name, _ := r.(string)
			p, _ := props[name].(map[string]any)
			v, err := smallest(p, defs, depth+1)
			if err != nil {
				return nil, err
			}
			out[name] = v
		}
		return out, nil
	case "array":
		return []any{}, nil
	case "string":
		return "", nil
	case "integer", "number":
		return 0, nil
	case "boolean":
		return false, nil
	}
	return nil, nil
}
