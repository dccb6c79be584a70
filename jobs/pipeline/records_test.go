package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

func TestRecordOptionsValidation(t *testing.T) {
	base := `name: v
sources:
  - path: in.jsonl
    format: %s
    source: json
    mapping: {object: %s}
    json: {drop: [%s], keep: [%s], text_fields: [%s]}
    facts: [%s]
ontology: {entity_types: [{name: Ticket}]}
`
	tests := []struct {
		name                                    string
		format, object, drop, keep, text, facts string
		want                                    string
	}{
		{"ok", "jsonl", "issue.id", `"**.url"`, "", "issue.body", "{subject: issue.title, subject_type: Ticket, relation: HAS_STATE, object: issue.state}", ""},
		{"parquet", "parquet", "issue.id", "", "", "", "", "sources[0].format: json, facts and mapping.object need JSON Lines"},
		{"bad pattern", "jsonl", "issue.id", `"a.**b"`, "", "", "", "sources[0].json.drop[0]: pattern"},
		{"bad keep", "jsonl", "issue.id", "", `"a[0]"`, "", "", "sources[0].json.keep[0]: path"},
		{"text dropped", "jsonl", "issue.id", `"**.body"`, "", "issue.body", "", `sources[0].json.text_fields[0]: issue.body is pruned away by json.drop pattern "**.body"`},
		{"text not kept", "jsonl", "issue.id", "", "issue.title", "issue.body", "", "sources[0].json.text_fields[0]: issue.body is pruned away by no json.keep pattern"},
		{"relation", "jsonl", "issue.id", "", "", "", "{subject: a, relation: has_state, object: b}", "sources[0].facts[0]: relation"},
		{"wildcard in a fact path", "jsonl", "issue.id", "", "", "", "{subject: a, relation: R, object: b.*}", "sources[0].facts[0]: object: path"},
		{"type", "jsonl", "issue.id", "", "", "", "{subject: a, subject_type: Issue, relation: R, object: b}", `sources[0].facts[0].subject_type: "Issue" is not an entity type`},
		{"state without object", "jsonl", "", "", "", "", "{subject: a, relation: R, object: b}", "sources[0].facts[0]: a state fact is closed by a later snapshot of the same object: set sources[0].mapping.object"},
		{"event without object", "jsonl", "", "", "", "", "{subject: a, relation: R, object: b, kind: event}", ""},
		{"kind", "jsonl", "issue.id", "", "", "", "{subject: a, relation: R, object: b, kind: sometimes}", "sources[0].facts[0]: kind"},
		{"template", "jsonl", "issue.id", "", "", "", `{subject: a, relation: R, object: b, fact: "{subject} {verb} {object}"}`, "sources[0].facts[0]: fact"},
		{"repeated", "jsonl", "issue.id", "", "", "", "{subject: a, relation: R, object: b}, {subject: a, relation: R, object: b}", "sources[0].facts[1]: declares"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := fmt.Sprintf(base, tt.format, tt.object, tt.drop, tt.keep, tt.text, tt.facts)
			_, err := Parse([]byte(raw), nil, func(string) (string, bool) { return "", false })
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("rejected: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := Parse([]byte("name: v\nsources: [{path: a.jsonl}]\nstages: {extract: {llm: maybe}}\n"), nil,
		func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "stages.extract.llm") {
		t.Errorf("stages.extract.llm: maybe: %v", err)
	}
}
