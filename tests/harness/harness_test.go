package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
)

func TestParseEvent(t *testing.T) {
	tests := []struct {
		line string
		want Event
		ok   bool
	}{
		{`time=2026-01-01T00:00:00Z level=INFO msg="stage starting" stage=extract` + "\n", Event{Stage: "extract"}, true},
		{`time=x level=INFO msg="stage finished" stage=resolve units=3 skipped=0 seconds=0.12`, Event{Stage: "resolve", Finished: true}, true},
		{`time=x level=INFO msg=progress stage=extract done=3`, Event{}, false},
		{`time=x level=INFO msg="stage starting"`, Event{}, false},
	}
	for _, tt := range tests {
		got, ok := parseEvent(tt.line)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parseEvent(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCompareDirs(t *testing.T) {
	mk := func(files map[string]string) string {
		d := t.TempDir()
		for n, s := range files {
			if err := os.WriteFile(filepath.Join(d, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	a := mk(map[string]string{"x.parquet": "1", "y.parquet": "2"})
	tests := []struct {
		name  string
		other string
		want  string // "" = equal
	}{
		{"equal", mk(map[string]string{"x.parquet": "1", "y.parquet": "2"}), ""},
		{"bytes differ", mk(map[string]string{"x.parquet": "1", "y.parquet": "3"}), "y.parquet differs"},
		{"file missing", mk(map[string]string{"x.parquet": "1"}), "files"},
	}
	for _, tt := range tests {
		err := CompareDirs(a, tt.other)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: CompareDirs = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestAnswerOf checks the keys a Recorder files answers under: the client's cache keys, with
// a validation retry's feedback removed.
func TestAnswerOf(t *testing.T) {
	msgs := []wire.Message{{Role: wire.RoleSystem, Content: "sys"}, {Role: wire.RoleUser, Content: "user"}}
	schema := json.RawMessage(`{"type":"object"}`)
	want := llm.CacheKey("m", msgs, "extract_graph", schema, 0, "format="+wire.FormatJSONSchema)
	retry := append([]wire.Message(nil), msgs...)
	retry[1].Content = "Your previous answer was rejected: x. Answer again with one JSON object that follows the response schema exactly.\n\nuser"
	for _, m := range [][]wire.Message{msgs, retry} {
		body, _ := json.Marshal(wire.ChatRequest{Model: "m", Messages: m, ResponseFormat: &wire.ResponseFormat{Type: "json_schema",
			JSONSchema: &wire.JSONSchema{Name: "extract_graph", Strict: true, Schema: schema}}})
		a := answerOf(body, false)
		if a.Task != "extract_graph" || len(a.Keys) != 1 || a.Keys[0] != want {
			t.Errorf("chat answer %+v, want key %s", a, want)
		}
	}
	body, _ := json.Marshal(wire.EmbeddingsRequest{Model: "e", Input: []string{"a", "b"}, Dimensions: 8})
	a := answerOf(body, true)
	if a.Task != EmbeddingsTask || len(a.Keys) != 2 || a.Keys[1] != embed.CacheKey("e", 8, "b") {
		t.Errorf("embeddings answer %+v", a)
	}
}
