package hostile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// ticket is one webhook record: a ticket's title and state at a time, with its id when id is not
// empty (mapping.object: issue.id), "null" for a null id and "-" for no id field at all.
func ticket(key, at, id, title, state string) string {
	issue := map[string]any{"title": title, "state": state}
	switch id {
	case "-":
	case "null":
		issue["id"] = nil
	default:
		issue["id"] = id
	}
	b, _ := json.Marshal(map[string]any{"repo": "shop", "at": at, "key": key, "issue": issue})
	return string(b) + "\n"
}

// TestRecordsWithoutObject: records of distinct tickets that lack the object field (absent, null
// or empty) are not snapshots of one shared object: none closes another's state, each is counted,
// and a ticket with an id still closes its own earlier state.
func TestRecordsWithoutObject(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "t.jsonl"),
		ticket("k1", "2024-01-01T00:00:00Z", "-", "Checkout fails", "open")+
			ticket("k2", "2024-01-02T00:00:00Z", "null", "Login is slow", "closed")+
			ticket("k3", "2024-01-03T00:00:00Z", "", "Search is empty", "open")+
			ticket("k4", "2024-01-04T00:00:00Z", "  ", "Cart loses items", "closed")+
			ticket("k5", "2024-01-05T00:00:00Z", "7", "Export breaks", "open")+
			ticket("k6", "2024-01-06T00:00:00Z", "7", "Export breaks", "closed"))
	cp := filepath.Join(dir, "t.db")
	job := writeFile(t, filepath.Join(dir, "t.yaml"), fmt.Sprintf(`name: t
checkpoint: %s
record_time: reference
sources:
  - path: %s
    source: json
    mapping: {group: repo, reference_time: at, record_key: key, body: "*", object: issue.id}
    facts:
      - {subject: issue.title, subject_type: Ticket, relation: HAS_STATE, object: issue.state, object_type: State,
         fact: "{subject} is {object}"}
ontology:
  entity_types:
    - {name: Ticket, description: a ticket}
    - {name: State, description: open or closed}
stages:
  extract: {llm: "off"}
`, cp, in))
	report := filepath.Join(dir, "report.json")
	res := run(t, dir, nil, "run", job, "--report", report)
	want(t, res, 0, "records lack their mapping.object field")
	var rep struct {
		Records struct {
			WithoutObject int `json:"without_object"`
		} `json:"records"`
	}
	b := readFileT(t, report)
	if err := json.Unmarshal(b, &rep); err != nil || rep.Records.WithoutObject != 4 {
		t.Errorf("report records.without_object = %d (%v), want 4", rep.Records.WithoutObject, err)
	}
	q := run(t, dir, nil, "query", job, "--json", "--history", "--known-at", "2030-01-01", "--valid-at", "2030-01-01")
	want(t, q, 0)
	var facts []struct {
		Fact      string           `json:"fact"`
		InvalidAt *json.RawMessage `json:"invalid_at"`
		ExpiredAt *json.RawMessage `json:"expired_at"`
	}
	if err := json.Unmarshal([]byte(q.Stdout), &facts); err != nil {
		t.Fatalf("query --json: %v\n%s", err, q.Stdout)
	}
	closed := map[string]bool{}
	for _, f := range facts {
		closed[f.Fact] = f.InvalidAt != nil || f.ExpiredAt != nil
	}
	wantClosed := map[string]bool{"Checkout fails is open": false, "Login is slow is closed": false,
		"Search is empty is open": false, "Cart loses items is closed": false,
		"Export breaks is open": true, "Export breaks is closed": false}
	for f, c := range wantClosed {
		got, ok := closed[f]
		if !ok {
			t.Errorf("fact %q missing; facts:\n%s", f, q.Stdout)
		} else if got != c {
			t.Errorf("fact %q closed = %v, want %v", f, got, c)
		}
	}
	if strings.Count(q.Stdout, `"fact"`) != len(wantClosed) {
		t.Errorf("%d facts, want %d:\n%s", strings.Count(q.Stdout, `"fact"`), len(wantClosed), q.Stdout)
	}
}
