package localllm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestGrammarsOnTheServer sends every task's grammar (response format "grammar"), and that of a
// window request of three episodes, to the local llama.cpp server: the server must apply a
// grammar (checked first with one no model would follow unasked) and accept each, and an answer
// the model finishes must validate against the task's schema and be compact JSON, with no
// whitespace between tokens; the window's lists the three episodes in order.
func TestGrammarsOnTheServer(t *testing.T) {
	m := testenv.LocalModel(t)
	client := &http.Client{Timeout: 5 * time.Minute}
	post := func(grammar string, maxTokens int) (int, wire.ChatResponse, string) {
		body, err := json.Marshal(wire.ChatRequest{Model: m.Model, MaxTokens: maxTokens, Grammar: grammar,
			Messages: []wire.Message{{Role: wire.RoleSystem, Content: "Answer with one JSON object."},
				{Role: wire.RoleUser, Content: "Emma said on 2024-01-08: I work at Globex now."}}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Post(strings.TrimSuffix(m.URL, "/")+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out wire.ChatResponse
		if resp.StatusCode == http.StatusOK {
			if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
				t.Fatalf("answer %s: %v", raw, err)
			}
		}
		return resp.StatusCode, out, string(raw)
	}
	// A grammar no model would follow unasked: the server must apply the field, not ignore it.
	// (An unparsable grammar cannot be the check: llama-cpp-python's server exits on one.)
	if code, out, raw := post("root ::= \"{\\\"n\\\":\" [0-9] \"}\"\n", 8); code != http.StatusOK ||
		!regexp.MustCompile(`^\{"n":[0-9]\}$`).MatchString(out.Choices[0].Message.Content) {
		t.Fatalf("a one-digit grammar: HTTP %d %s (does the server take llama.cpp's grammar field?)", code, raw)
	}
	type asked struct {
		name, grammar string
		task          *wire.Task
	}
	var cases []asked
	for _, name := range wire.Tasks() {
		task, err := wire.LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, asked{name, task.Grammar, task})
		if name == wire.TaskExtractWindow { // and the grammar of a window request
			g, err := wire.WindowGrammar(task, 3)
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, asked{name + " of 3 episodes", g, task})
		}
	}
	finished := 0
	for _, a := range cases {
		name, task := a.name, a.task
		code, out, raw := post(a.grammar, 256)
		if code != http.StatusOK {
			t.Errorf("%s: HTTP %d %s", name, code, raw)
			continue
		}
		c := out.Choices[0]
		if c.FinishReason == "length" {
			t.Logf("%s: cut at 256 tokens", name)
			continue
		}
		finished++
		answer := []byte(c.Message.Content)
		if err := task.Schema.Validate(answer); err != nil {
			t.Errorf("%s: %v\n%s", name, err, answer)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, answer); err != nil || compact.String() != string(answer) {
			t.Errorf("%s: the answer is not compact JSON: %q", name, answer)
		}
		if a.grammar != task.Grammar {
			var w wire.WindowOutput
			if err := json.Unmarshal(answer, &w); err != nil || len(w.Episodes) != 3 || w.Episodes[0].N != 1 || w.Episodes[2].N != 3 {
				t.Errorf("%s: not the three numbered episodes: %s", name, answer)
			}
		}
	}
	t.Logf("%d of %d answers finished within 256 tokens", finished, len(cases))
	if finished == 0 {
		t.Error("no answer finished: nothing was validated")
	}
}
