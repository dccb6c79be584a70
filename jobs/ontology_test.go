package jobs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ontologyJob is a small job with a Person/Organization ontology, a WORKS_AT edge type, an
// excluded Plan type and two groups that use the same names. It runs with the offline responder,
// whose answers are a baseline for mechanics, not for extraction quality.
func ontologyJob(t *testing.T) *Job {
	t.Helper()
	dir := t.TempDir()
	msgs := `{"group_id":"g1","reference_time":"2024-01-08T09:00:00Z","speaker":"Alice","content":"I work at Kakao now."}
{"group_id":"g1","reference_time":"2024-01-08T09:01:00Z","speaker":"Ben","content":"I work at Kakao too. I live in Pangyo."}
{"group_id":"g1","reference_time":"2024-01-08T09:02:00Z","speaker":"Alice","content":"I live in Pangyo as well."}
{"group_id":"g2","reference_time":"2024-01-08T09:00:00Z","speaker":"Alice","content":"I work at Kakao now."}
{"group_id":"g2","reference_time":"2024-01-08T09:01:00Z","speaker":"Ben","content":"I live in Pangyo."}
`
	recs := `{"group_id":"g1","reference_time":"2024-02-01T09:00:00Z","record_key":"r1","record":{"customer":"Acme Corp","plan":"Pro","industry":"Retail","city":"Boston"}}
`
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	yaml := `name: ontology
checkpoint: ` + filepath.Join(dir, "cp.db") + `
record_time: reference
sources:
  - path: ` + write("msgs.jsonl", msgs) + `
    format: jsonl
    source: message
    mapping: {group: group_id, reference_time: reference_time, speaker: speaker, body: content}
  - path: ` + write("recs.jsonl", recs) + `
    format: jsonl
    source: json
    mapping: {group: group_id, reference_time: reference_time, record_key: record_key, body: record}
ontology:
  entity_types:
    - {name: Person, description: a human being}
    - {name: Organization, description: a company or institution, attributes: [industry]}
    - {name: Plan, description: a subscription plan}
  edge_types:
    - {name: WORKS_AT, description: employment, sources: [Person], targets: [Organization]}
  excluded_types: [Plan]
`
	j, err := Parse([]byte(yaml), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestValidateExtractAndResolveKeys(t *testing.T) {
	tests := []struct {
		set     string
		wantErr string
	}{
		{"stages.extract.mode=combined", ""},
		{"stages.extract.mode=two_call", ""},
		{"stages.extract.mode=three_calls", "stages.extract.mode"},
		{"stages.extract.chitchat=ask", ""},
		{"stages.extract.chitchat=never", "stages.extract.chitchat"},
		{"stages.extract.context_tokens=100000", ""},
		{"stages.extract.context_tokens=-1", "stages.extract.context_tokens"},
		{"stages.extract.context_tokens=2000000", "stages.extract.context_tokens"},
		{"stages.resolve.grey_threshold=1.5", "stages.resolve.grey_threshold"},
		{"stages.resolve.embedding_threshold=-0.1", "stages.resolve.embedding_threshold"},
		{"stages.resolve.batch_size=-1", "stages.resolve"},
		{"stages.resolve.llm=off", ""},
		{"stages.resolve.llm=maybe", "stages.resolve.llm"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			j, err := loadDemo(t, tt.set)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if x := j.Stages.Extract; x.Mode == "" || x.Chitchat == "" || x.ContextTokens == 0 || j.Stages.Resolve.LLM == "" {
					t.Errorf("defaults not filled: %+v", j.Stages)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one about %s", err, tt.wantErr)
			}
		})
	}
}
