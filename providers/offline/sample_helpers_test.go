package offline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// sampleLine is one line of the bundled examples/*.jsonl files.
type sampleLine struct {
	GroupID       string          `json:"group_id"`
	ReferenceTime string          `json:"reference_time"`
	Speaker       string          `json:"speaker"`
	Content       string          `json:"content"`
	RecordKey     string          `json:"record_key"`
	Record        json.RawMessage `json:"record"`
}

// sampleInput is the extract_graph input of one sample line, with its group.
type sampleInput struct {
	group string
	wire.ExtractInput
}

// sampleInputs reads an examples file and builds the extract_graph input of every line the way
// the pipeline does: reference time in UTC, a record's body as canonical JSON (sorted keys), and
// up to four previous episodes of the same group.
func sampleInputs(t *testing.T, name string) []sampleInput {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sampleInput
	prev := map[string][]wire.EpisodeIn{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l sampleLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref, err := time.Parse(time.RFC3339, l.ReferenceTime)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ep := wire.EpisodeIn{ReferenceTime: ref.UTC().Format(time.RFC3339), Source: "message", Speaker: l.Speaker, Content: l.Content}
		if len(l.Record) > 0 {
			ep.Source, ep.Content = "json", canonicalJSON(t, l.Record)
		}
		p := prev[l.GroupID]
		out = append(out, sampleInput{l.GroupID, wire.ExtractInput{Episode: ep, Previous: append([]wire.EpisodeIn{}, p...)}})
		if p = append(p, ep); len(p) > 4 {
			p = p[1:]
		}
		prev[l.GroupID] = p
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func canonicalJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSpace(b.Bytes()))
}
