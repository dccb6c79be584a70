package loaders

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/records"
)

func recordSpec(t *testing.T, drop []string, text []string, decls ...records.Decl) *RecordSpec {
	t.Helper()
	p, err := records.NewPruner(drop, nil, true, true)
	if err != nil {
		t.Fatal(err)
	}
	spec := &RecordSpec{Pruner: p, Decls: decls}
	for _, s := range text {
		path, err := records.ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		spec.TextFields = append(spec.TextFields, path)
	}
	return spec
}

// A JSON record is pruned for its content, while its object (a row field) and its declared
// facts are read from the full record, and its id does not depend on the pruning.
func TestRecordPrunedAfterReading(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "in.jsonl", `{"g":"a","t":"2024-05-01T09:00:00Z","issue":{"id":7,"title":"Login fails","url":"u","assignees":[{"login":"bob","url":"x"}],"milestone":null,"body":"It fails."}}
{"g":"a","t":"2024-05-01T10:00:00Z","issue":{"title":"Login fails","assignees":[]}}
`)
	assignee, err := records.NewDecl("issue.title", "", "ASSIGNED_TO", "issue.assignees[*].login", "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	mapping := Mapping{Group: "g", ReferenceTime: "t", Body: "*", Object: "issue.id"}
	spec := Spec{Path: path, Source: graph.SourceJSON, Mapping: mapping,
		Record: recordSpec(t, []string{"**.url", "issue.assignees"}, []string{"issue.body"}, assignee)}
	rs := readAll(t, spec)
	if len(rs) != 2 || rs[0].Bad != nil || rs[1].Bad != nil {
		t.Fatalf("results %+v", rs)
	}
	first := rs[0].Episode
	if first.Content != `{"g":"a","issue":{"body":"It fails.","id":7,"title":"Login fails"},"t":"2024-05-01T09:00:00Z"}` {
		t.Errorf("content %s", first.Content)
	}
	if !strings.Contains(rs[0].FullBody, `"url":"u"`) {
		t.Errorf("full body %s", rs[0].FullBody)
	}
	want := &graph.Record{Object: "7", TextFields: []string{"issue.body"}, FactPaths: []string{"issue.title", "issue.assignees.login"},
		Declared: []graph.Declaration{{Key: "issue.title ASSIGNED_TO issue.assignees[*].login", Relation: "ASSIGNED_TO", Kind: "state",
			Pairs: []graph.DeclaredPair{{Subject: "Login fails", Object: "bob", Fact: "Login fails assigned to bob"}}}}}
	if !reflect.DeepEqual(first.Record, want) {
		t.Errorf("record %+v\nwant %+v", first.Record, want)
	}
	second := rs[1].Episode.Record
	if second.Object != "" || len(second.Declared[0].Pairs) != 0 || second.Declared[0].Missing != "" {
		t.Errorf("second record %+v: no object, no assignees (an empty list is no assignee, not a missing field)", second)
	}
	plain := readAll(t, Spec{Path: path, Source: graph.SourceJSON, Mapping: mapping})
	if plain[0].Episode.UUID != first.UUID || plain[1].Episode.UUID != rs[1].Episode.UUID {
		t.Error("pruning options changed the episode ids")
	}
	if plain[0].FullBody != "" || plain[0].Episode.Record == nil || plain[0].Episode.Record.Object != "7" {
		t.Errorf("without record options: %+v", plain[0])
	}
}

// Record options need JSON Lines, and declared facts need a JSON object body.
func TestRecordOptionsNeedJSONRecords(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "in.jsonl", `{"g":"a","t":"2024-05-01T09:00:00Z","body":"plain text"}`+"\n")
	d, _ := records.NewDecl("a", "", "R", "b", "", "event", "")
	rs := readAll(t, Spec{Path: path, Source: graph.SourceJSON, Mapping: Mapping{Group: "g", ReferenceTime: "t", Body: "body"},
		Record: recordSpec(t, nil, nil, d)})
	if len(rs) != 1 || rs[0].Bad == nil || rs[0].Bad.Field != "body" || !strings.Contains(rs[0].Bad.Reason, "not a JSON record") {
		t.Errorf("results %+v", rs)
	}
	pq := writeFile(t, dir, "in.parquet", "PAR1")
	err := Read(context.Background(), LocalFS{}, Spec{Path: pq, Mapping: Mapping{Object: "id"}}, func(Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "only supported for JSON Lines") {
		t.Errorf("record options on Parquet: %v", err)
	}
	if err := (Spec{Path: pq, Format: FormatParquet, Record: recordSpec(t, []string{"a"}, nil)}).Validate(); err == nil {
		t.Error("drop patterns on a parquet source accepted")
	}
}
