package graphdb

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/tests/harness"
)

// one reads one value of a query on the test Neo4j.
func one(t *testing.T, uri, q string) any {
	t.Helper()
	rows, err := harness.Neo4jQuery(t.Context(), uri, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(rows))
	}
	for _, v := range rows[0] {
		return v
	}
	return nil
}

// TestNeo4jLoadBesideAnOnlineWriter plays the online engine with Cypher between loads of the
// sample (package doc, Ownership): its episode and mention are kept and counted, its summary
// edit and fact closure stay while backfill's data for them is unchanged; once it changes, both
// elements are written again and reported, the closure stays (no later episode), and a later
// episode restating the fact reopens it; ForeignDelete removes the foreign elements.
func TestNeo4jLoadBesideAnOnlineWriter(t *testing.T) {
	uri, _ := neo4jDB(t)
	src := sinkstest.Sample()
	load(t, uri, src, Options{})
	alice, paris := src.EntityList[3], src.FactList[1]
	if alice.Name != "Alice" || paris.Fact != "Alice lives in Paris." {
		t.Fatalf("sample changed: %s, %s", alice.Name, paris.Fact)
	}
	online := fmt.Sprintf(`MATCH (a:Entity {uuid: '%s'}) MATCH ()-[f:RELATES_TO {uuid: '%s'}]->()
		CREATE (e:Episodic {uuid: 'online-ep', group_id: 'user-1', name: 'online', content: 'Alice: I left Paris.', source: 'message'})
		CREATE (e)-[:MENTIONS {uuid: 'online-mention', group_id: 'user-1'}]->(a)
		SET a.summary = a.summary + ' She left Paris in June.',
		    f.invalid_at = datetime('2024-06-01T00:00:00Z'), f.expired_at = datetime('2024-06-02T00:00:00Z')`, alice.UUID, paris.UUID)
	if _, err := harness.Neo4jQuery(t.Context(), uri, online); err != nil {
		t.Fatal(err)
	}
	summary := fmt.Sprintf("MATCH (a:Entity {uuid: '%s'}) RETURN a.summary", alice.UUID)
	closed := fmt.Sprintf("MATCH ()-[f:RELATES_TO {uuid: '%s'}]->() RETURN toString(f.invalid_at) + ' ' + toString(f.expired_at)", paris.UUID)
	foreign := "MATCH (e:Episodic {uuid: 'online-ep'})-[m:MENTIONS {uuid: 'online-mention'}]->() RETURN count(m)"
	const onlineClosure = "2024-06-01T00:00:00Z 2024-06-02T00:00:00Z"

	// The same data again: nothing of the online writer's changes.
	res := load(t, uri, sinkstest.Sample(), Options{})
	if res.ForeignKept != 2 || res.ForeignKinds["Episodic"] != 1 || res.ForeignKinds["MENTIONS"] != 1 || res.Deleted != 0 {
		t.Errorf("unchanged reload: %+v, want the online episode and mention kept", res)
	}
	if s := one(t, uri, summary); s != "Alice moved to Paris. She left Paris in June." {
		t.Errorf("unchanged reload: Alice's summary %q", s)
	}
	if c := one(t, uri, closed); c != onlineClosure {
		t.Errorf("unchanged reload: the Paris fact's closure %q, want %q", c, onlineClosure)
	}

	// Backfill's data for both changed: the summary is overwritten and reported, the fact keeps
	// the online closure (none of its episodes is later than it).
	changedSrc := func() *sinks.MemSource {
		s := sinkstest.Sample()
		s.EntityList[3].Summary = "Alice moved to Paris for a new job."
		s.FactList[1].Fact = "Alice lives in Paris, France."
		return s
	}
	res = load(t, uri, changedSrc(), Options{})
	// Both elements were edited online and are written again: both are reported (the fact's
	// closure stays, its text is the loader's).
	if res.ForeignKept != 2 || res.OverwrittenOnlineEdits != 2 || !slices.Contains(res.OverwrittenSample, alice.UUID) ||
		!slices.Contains(res.OverwrittenSample, paris.UUID) || res.OnlineClosuresKept != 1 {
		t.Errorf("changed reload: %+v, want 2 foreign kept, Alice and the Paris fact overwritten, 1 closure kept", res)
	}
	if s := one(t, uri, summary); s != "Alice moved to Paris for a new job." {
		t.Errorf("changed reload: Alice's summary %q", s)
	}
	if c := one(t, uri, closed); c != onlineClosure {
		t.Errorf("changed reload: the Paris fact's closure %q, want %q", c, onlineClosure)
	}
	if f := one(t, uri, fmt.Sprintf("MATCH ()-[f:RELATES_TO {uuid: '%s'}]->() RETURN f.fact", paris.UUID)); f != "Alice lives in Paris, France." {
		t.Errorf("changed reload: fact text %q", f)
	}
	if n := one(t, uri, foreign); n != int64(1) {
		t.Errorf("changed reload: online mention %v", n)
	}

	// A later episode restates the fact: the later knowledge wins, the fact is open again.
	restated := changedSrc()
	ep := graph.Episode{UUID: graph.EpisodeID("user-1", "m9"), GroupID: "user-1", Name: "m9", Source: graph.SourceMessage,
		SourceDescription: "chat", Content: "Back in Paris for good.", Speaker: "Alice",
		ReferenceTime: time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC), Seq: 9, RecordKey: "m9"}
	restated.EpisodeList = append(restated.EpisodeList, ep)
	restated.FactList[1].Episodes = append(restated.FactList[1].Episodes, ep.UUID)
	res = load(t, uri, restated, Options{})
	if res.OnlineClosuresKept != 0 {
		t.Errorf("restated reload: %+v, want no closure kept", res)
	}
	if c := one(t, uri, fmt.Sprintf("MATCH ()-[f:RELATES_TO {uuid: '%s'}]->() RETURN f.invalid_at IS NULL AND f.expired_at IS NULL", paris.UUID)); c != true {
		t.Errorf("restated reload: the Paris fact is still closed")
	}

	// sink.foreign: delete: the group becomes what the loader writes.
	res = load(t, uri, restated, Options{Foreign: ForeignDelete, Owner: NewMemOwner()})
	if res.ForeignKept != 0 || res.Deleted != 2 {
		t.Errorf("foreign delete: %+v, want the online episode and mention deleted", res)
	}
	if n := one(t, uri, "MATCH (e:Episodic {uuid: 'online-ep'}) RETURN count(e)"); n != int64(0) {
		t.Errorf("foreign delete: the online episode is still there")
	}
}
