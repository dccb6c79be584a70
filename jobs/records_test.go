package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages/temporal"
)

// known reads the facts and version log of a run and answers temporal.Known at knownAt.
func known(t *testing.T, j *Job, knownAt time.Time) []graph.Fact {
	t.Helper()
	_, facts, _ := graphOf(t, j)
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var versions []graph.FactVersion
	if err := store.EachFactVersion(ctx, "", func(v graph.FactVersion) error { versions = append(versions, v); return nil }); err != nil {
		t.Fatal(err)
	}
	return temporal.Known(facts, versions, knownAt)
}

// declaredLines writes the declared facts of the ticket example (by predicate) with their
// intervals, sorted.
func declaredLines(facts []graph.Fact, about string) []string {
	var out []string
	for _, f := range facts {
		if !slices.Contains([]string{"HAS_STATE", "ASSIGNED_TO", "HAS_LABEL", "IN_MILESTONE", "REPORTED", "COMMENTED_ON"}, f.Name) ||
			!strings.Contains(f.Fact, about) {
			continue
		}
		out = append(out, fmt.Sprintf("%s | %s | %s | %s | %s | %s", f.UUID, f.Fact, when(f.ValidAt), when(f.InvalidAt),
			when(f.ExpiredAt), f.SourceUUID+">"+f.TargetUUID))
	}
	slices.Sort(out)
	return out
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("01-02T15:04")
}

// TestTicketsExample runs the bundled ticket change log: the state history of a ticket has the
// right intervals (closed, reopened, closed again; a removed assignee closed at the snapshot that
// removed it, known from then on), pruning cuts the tokens per record by more than ten, a
// re-run asks the LLM nothing, the summary counts the 35 records without a comment (no
// warning: an event without a comment is common), and the declared facts are the same graph when the LLM is off.
func TestTicketsExample(t *testing.T) {
	j := exampleJob(t, "tickets")
	rep := run(t, j)
	if r := rep.Records; r == nil || r.Records != 46 || r.Pruned != 46 || r.TokensAfter*10 > r.TokensBefore ||
		r.MissingFields["sources[0].facts[5]"] != 35 {
		t.Errorf("records report %+v", rep.Records)
	}
	var table strings.Builder
	rep.WriteTable(&table)
	if !regexp.MustCompile(`(?m)^declared facts +35 records lack a field of sources\[0\]\.facts\[5\]: they state nothing about it$`).MatchString(table.String()) {
		t.Errorf("the summary does not count the records without a comment:\n%s", table.String())
	}
	end := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	facts := known(t, j, end)
	var states []string
	for _, f := range facts {
		if f.Name == "HAS_STATE" && strings.HasPrefix(f.Fact, "Checkout button") {
			states = append(states, fmt.Sprintf("%s [%s, %s) expired %s", f.Fact[len("Checkout button unresponsive on Safari is "):],
				when(f.ValidAt), when(f.InvalidAt), when(f.ExpiredAt)))
		}
	}
	want := []string{
		"open [05-06T09:12, 05-10T16:30) expired 05-10T16:30",
		"closed [05-10T16:30, 05-13T08:21) expired 05-13T08:21",
		"open [05-13T08:21, 05-16T09:00) expired 05-16T09:00",
		"closed [05-16T09:00, -) expired -",
	}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("state history:\n%s\nwant\n%s", strings.Join(states, "\n"), strings.Join(want, "\n"))
	}
	mina := "Checkout button unresponsive on Safari is assigned to mina"
	var got []string
	for _, f := range facts {
		if f.Fact == mina || f.Fact == "Checkout button unresponsive on Safari is assigned to ben" {
			got = append(got, fmt.Sprintf("%s [%s, %s)", f.Fact[len(mina)-4:], when(f.ValidAt), when(f.InvalidAt)))
		}
	}
	if w := []string{"mina [05-06T10:02, 05-07T13:10)", "ben [05-06T13:05, -)"}; !reflect.DeepEqual(got, w) {
		t.Errorf("assignees %q, want %q (ben's assignment arrives late in the file)", got, w)
	}
	// Between the two snapshots the removal was not known yet: as known then, mina is open.
	between := time.Date(2024, 5, 7, 12, 0, 0, 0, time.UTC)
	open := false
	for _, f := range known(t, j, between) {
		if f.Fact == mina {
			open = f.InvalidAt == nil && f.ExpiredAt == nil
		}
	}
	if !open {
		t.Error("as known on 05-07 12:00 mina's assignment should be open")
	}

	again := run(t, j)
	if again.LLM.Calls != 0 || again.Stages["extract"].Skipped != 46 || again.Stages["extract"].Units != 0 {
		t.Errorf("re-run: %d LLM calls, extract %+v; want none and every unit skipped", again.LLM.Calls, again.Stages["extract"])
	}

	off := exampleJob(t, "tickets", "stages.extract.llm=off")
	offRep := run(t, off)
	if offRep.LLMByStage["extract"].Calls != 0 || rep.LLMByStage["extract"].Calls == 0 {
		t.Errorf("extract calls: %d with the LLM, %d without", rep.LLMByStage["extract"].Calls, offRep.LLMByStage["extract"].Calls)
	}
	with, without := declaredLines(facts, ""), declaredLines(known(t, off, end), "")
	if len(with) < 40 || !reflect.DeepEqual(with, without) {
		t.Errorf("declared facts differ with and without the LLM for text (%d and %d):\n%s\n--\n%s", len(with), len(without),
			strings.Join(with, "\n"), strings.Join(without, "\n"))
	}
}

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

// A record that lacks its source's object field is counted, and so is one that lacks a field
// of a declared fact; a body that is not a JSON object under declared facts is quarantined.
func TestRecordsWithoutObjectOrObjectBody(t *testing.T) {
	dir := t.TempDir()
	in := `{"g":"x","t":"2024-05-01T09:00:00Z","k":"1","body":{"issue":{"id":7,"title":"A","state":"open"}},"issue":{"id":7}}
{"g":"x","t":"2024-05-01T10:00:00Z","k":"2","body":{"issue":{"state":"closed"}}}
{"g":"x","t":"2024-05-01T11:00:00Z","k":"3","body":"just text","issue":{"id":7}}
`
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprintf(`name: r
checkpoint: %[1]s/r.db
record_time: reference
sources:
  - path: %[1]s/in.jsonl
    source: json
    mapping: {group: g, reference_time: t, record_key: k, body: body, object: issue.id}
    facts: [{subject: issue.title, relation: HAS_STATE, object: issue.state}]
limits: {max_error_ratio: 0.5}
`, dir)
	j, err := Parse([]byte(raw), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	rep := run(t, j)
	r := rep.Records
	if r == nil || r.Records != 2 || r.WithoutObject != 1 || r.MissingFields["sources[0].facts[0]"] != 1 || rep.Quarantined != 1 {
		t.Errorf("report: records %+v, quarantined %d", r, rep.Quarantined)
	}
}

// TestPlanTickets: plan shows the tokens per record before and after pruning and how many
// records skip the LLM: in the ticket log, every record but those that open a ticket (new
// description) or add a comment (new comment text).
func TestPlanTickets(t *testing.T) {
	j := exampleJob(t, "tickets")
	p, err := MakePlan(context.Background(), j, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(j.Sources[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Count(string(raw), `"action":"opened"`) + strings.Count(string(raw), `"action":"created"`)
	r := p.Records
	if r == nil || r.Records != 46 || r.SkipLLM != 46-text || r.TokensAfter*10 > r.TokensBefore {
		t.Fatalf("plan records %+v; want %d of 46 to skip the LLM and a tenth of the tokens", r, 46-text)
	}
	var out strings.Builder
	p.WriteTable(&out)
	want := fmt.Sprintf("json records     46 (46 pruned): ~%d tokens per record before pruning, ~%d after; %d skip the LLM",
		r.TokensBefore/46, r.TokensAfter/46, 46-text)
	if !strings.Contains(out.String(), want) {
		t.Errorf("plan table lacks %q:\n%s", want, out.String())
	}
}

// TestLateTicketEvent: the ticket log without its late line, then with it, gives the same
// declared facts, intervals and version log as one run over the whole log (record_time:
// reference), and the second run extracts only the late record and the next snapshot of its
// ticket.
func TestLateTicketEvent(t *testing.T) {
	j := exampleJob(t, "tickets")
	full, err := os.ReadFile(j.Sources[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(full)), "\n")
	late := -1
	for i, l := range lines {
		if strings.Contains(l, `"updated_at":"2024-05-06T13:05:00Z"`) {
			late = i
		}
	}
	if late < 0 {
		t.Fatal("the late line of ticket 101 is not in the log")
	}
	path := filepath.Join(t.TempDir(), "tickets.jsonl")
	without := strings.Join(append(append([]string(nil), lines[:late]...), lines[late+1:]...), "")
	if err := os.WriteFile(path, []byte(without), 0o644); err != nil {
		t.Fatal(err)
	}
	j.Sources[0].Path = path
	run(t, j)
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	second := run(t, j)
	if x := second.Stages["extract"]; x.Units != 2 {
		t.Errorf("with the late line: extract %+v; want the late record and its successor to run again", x)
	}
	one := exampleJob(t, "tickets")
	run(t, one)
	end := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{time.Date(2024, 5, 6, 12, 0, 0, 0, time.UTC), time.Date(2024, 5, 7, 12, 0, 0, 0, time.UTC), end} {
		got, want := declaredLines(known(t, j, at), ""), declaredLines(known(t, one, at), "")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("as known at %s, incremental and ordered runs differ:\n%s\n--\n%s", at, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
