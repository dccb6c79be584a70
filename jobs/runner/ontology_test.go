package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/sinks/parquet"
)

// ontologyJob is a small job with a Person/Organization ontology, a WORKS_AT edge type, an
// excluded Plan type and two groups that use the same names. It runs with the offline responder,
// whose answers are a baseline for mechanics, not for extraction quality.
func ontologyJob(t *testing.T) *pipeline.Job {
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
	j, err := pipeline.Parse([]byte(yaml), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// graphOf reads a run's entities and facts from the store.
func graphOf(t *testing.T, j *pipeline.Job) ([]graph.Entity, []graph.Fact, []graph.Community) {
	t.Helper()
	ctx := context.Background()
	store := jobstest.OpenStore(t, j)
	defer store.Close()
	var es []graph.Entity
	var fs []graph.Fact
	var cs []graph.Community
	if err := store.EachEntity(ctx, "", func(e graph.Entity) error { es = append(es, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.EachFact(ctx, "", func(f graph.Fact) error { fs = append(fs, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.EachCommunity(ctx, "", func(c graph.Community) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	return es, fs, cs
}

func TestCustomOntologyRoundTrip(t *testing.T) {
	j := ontologyJob(t)
	mustRun(t, j)
	files := export(t, j)
	ents, err := pq.Read[parquet.EntityRow](bytes.NewReader(files["entities.parquet"]), int64(len(files["entities.parquet"])))
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{} // group/name → labels
	attrs := map[string]string{}
	for _, e := range ents {
		labels[e.GroupID+"/"+e.Name] = strings.Join(e.Labels, ",")
		if e.Attributes != nil {
			attrs[e.GroupID+"/"+e.Name] = *e.Attributes
		}
	}
	for name, want := range map[string]string{"g1/Alice": "Entity,Person", "g1/Ben": "Entity,Person", "g1/Kakao": "Entity,Organization",
		"g2/Alice": "Entity,Person", "g1/Acme Corp": "Entity,Organization", "g1/Pangyo": "Entity"} {
		if labels[name] != want {
			t.Errorf("%s: labels %q, want %q (all: %v)", name, labels[name], want, labels)
		}
	}
	if got := attrs["g1/Acme Corp"]; !strings.Contains(got, `"industry":"Retail"`) {
		t.Errorf("Acme Corp attributes %q, want industry Retail", got)
	}
	if _, ok := labels["g1/Pro"]; ok {
		t.Error("an entity of the excluded Plan type was kept")
	}
	facts, err := pq.Read[parquet.FactRow](bytes.NewReader(files["facts.parquet"]), int64(len(files["facts.parquet"])))
	if err != nil {
		t.Fatal(err)
	}
	byUUID := map[string]parquet.EntityRow{}
	for _, e := range ents {
		byUUID[e.UUID] = e
	}
	worksAt := 0
	for _, f := range facts {
		if f.Name == "HAS_PLAN" {
			t.Errorf("fact about an excluded Plan kept: %q", f.Fact)
		}
		if f.Name == "WORKS_AT" {
			worksAt++
			if src, tgt := byUUID[f.SourceNodeUUID], byUUID[f.TargetNodeUUID]; !slices.Contains(src.Labels, "Person") || !slices.Contains(tgt.Labels, "Organization") {
				t.Errorf("WORKS_AT from %v to %v", src.Labels, tgt.Labels)
			}
		}
	}
	if worksAt != 3 {
		t.Errorf("%d WORKS_AT facts, want 3 (Alice and Ben in g1, Alice in g2)", worksAt)
	}
}

func TestGroupsSharingNamesStayApart(t *testing.T) {
	j := ontologyJob(t)
	mustRun(t, j)
	ents, facts, comms := graphOf(t, j)
	group := map[string]string{}
	names := map[string][]string{}
	for _, e := range ents {
		group[e.UUID] = e.GroupID
		names[e.Name] = append(names[e.Name], e.GroupID)
	}
	if got := names["Alice"]; !slices.Equal(got, []string{"g1", "g2"}) && !slices.Equal(got, []string{"g2", "g1"}) {
		t.Fatalf("Alice in groups %v, want one entity in each group", got)
	}
	for _, f := range facts {
		if group[f.SourceUUID] != f.GroupID || group[f.TargetUUID] != f.GroupID {
			t.Errorf("fact %q of %s links entities of %s and %s", f.Fact, f.GroupID, group[f.SourceUUID], group[f.TargetUUID])
		}
	}
	if len(comms) == 0 {
		t.Fatal("no communities to check")
	}
	for _, c := range comms {
		for _, m := range c.Members {
			if group[m] != c.GroupID {
				t.Errorf("community %q of %s has a member of %s", c.Name, c.GroupID, group[m])
			}
		}
	}
}
