package runner

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
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/stages"
)

// known reads the facts and version log of a run and answers graph.Known at knownAt.
func known(t *testing.T, j *pipeline.Job, knownAt time.Time) []graph.Fact {
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
	return graph.Known(facts, versions, knownAt)
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
	rep := mustRun(t, j)
	if r := rep.Records; r == nil || r.Records != 46 || r.Pruned != 46 || r.TokensAfter*10 > r.TokensBefore ||
		r.MissingFields["sources[0].facts[5]"] != 35 {
		t.Errorf("records report %+v", rep.Records)
	}
	var table strings.Builder
	rep.WriteTable(&table, stages.StepNames())
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

	again := mustRun(t, j)
	if again.LLM.Calls != 0 || again.Stages["extract"].Skipped != 46 || again.Stages["extract"].Units != 0 {
		t.Errorf("re-run: %d LLM calls, extract %+v; want none and every unit skipped", again.LLM.Calls, again.Stages["extract"])
	}

	off := exampleJob(t, "tickets", "stages.extract.llm=off")
	offRep := mustRun(t, off)
	if offRep.LLMByStage["extract"].Calls != 0 || rep.LLMByStage["extract"].Calls == 0 {
		t.Errorf("extract calls: %d with the LLM, %d without", rep.LLMByStage["extract"].Calls, offRep.LLMByStage["extract"].Calls)
	}
	with, without := declaredLines(facts, ""), declaredLines(known(t, off, end), "")
	if len(with) < 40 || !reflect.DeepEqual(with, without) {
		t.Errorf("declared facts differ with and without the LLM for text (%d and %d):\n%s\n--\n%s", len(with), len(without),
			strings.Join(with, "\n"), strings.Join(without, "\n"))
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
	j, err := pipeline.Parse([]byte(raw), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	rep := mustRun(t, j)
	r := rep.Records
	if r == nil || r.Records != 2 || r.WithoutObject != 1 || r.MissingFields["sources[0].facts[0]"] != 1 || rep.Quarantined != 1 {
		t.Errorf("report: records %+v, quarantined %d", r, rep.Quarantined)
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
	mustRun(t, j)
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	second := mustRun(t, j)
	if x := second.Stages["extract"]; x.Units != 2 {
		t.Errorf("with the late line: extract %+v; want the late record and its successor to run again", x)
	}
	one := exampleJob(t, "tickets")
	mustRun(t, one)
	end := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{time.Date(2024, 5, 6, 12, 0, 0, 0, time.UTC), time.Date(2024, 5, 7, 12, 0, 0, 0, time.UTC), end} {
		got, want := declaredLines(known(t, j, at), ""), declaredLines(known(t, one, at), "")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("as known at %s, incremental and ordered runs differ:\n%s\n--\n%s", at, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
