package temporal

import (
	"fmt"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

func may(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, time.UTC) }

// declared is a declared state fact shown first on day from, recorded on day rec.
func declared(id string, from, rec int, cs ...stages.Closure) stages.ResolvedFact {
	v := may(from)
	return stages.ResolvedFact{UUID: id, Source: "s", Target: id + "-t", Predicate: "ASSIGNED_TO", Fact: id, Kind: "state",
		ValidAt: &v, Episodes: []string{"ep-" + id}, ReferenceTime: v, RecordTime: may(rec), Order: from, Declared: true, Closures: cs}
}

// closedBy is a closure by the snapshot of day at, recorded on day rec.
func closedBy(at, rec int) stages.Closure {
	return stages.Closure{Episode: fmt.Sprint("ep-", at), At: may(at), RecordTime: may(rec)}
}

// A declared fact is closed by the snapshot that no longer shows it: invalid_at is that
// snapshot's reference time, known from its record time (expired_at), with a version row
// naming it; a fact recorded after its closure was recorded is recorded closed; a closing
// snapshot that arrives late ends the fact earlier from its own record time on; and declared
// facts are never judgement candidates.
func TestClosuresOfDeclaredFacts(t *testing.T) {
	facts := []stages.ResolvedFact{
		declared("ann", 1, 1, closedBy(3, 3)),
		// closed by the snapshot of day 3, and by one of day 2 that arrives late (day 9)
		declared("bob", 1, 1, closedBy(2, 9), closedBy(3, 3)),
		// shown by a snapshot of day 2 recorded late (day 9), closed by the snapshot of day 3
		declared("dan", 2, 9, closedBy(3, 3)),
		declared("carol", 3, 3),
	}
	for _, c := range FindCandidates(facts, 20, NewRules(DefaultCardinalities(), nil)) {
		if len(c.Existing)+len(c.Invalidation)+len(c.Settled) > 0 || c.Ineligible > 0 {
			t.Fatalf("declared facts got judgement candidates: %+v", c)
		}
	}
	out, versions := Apply("g", facts, make([]Judgement, len(facts)))
	byID := map[string]graph.Fact{}
	for _, f := range out {
		byID[f.UUID] = f
	}
	check := func(id string, invalid, expired *time.Time) {
		t.Helper()
		f := byID[id]
		if !graph.SameTime(f.InvalidAt, invalid) || !graph.SameTime(f.ExpiredAt, expired) {
			t.Errorf("%s: invalid_at %v expired_at %v; want %v %v", id, f.InvalidAt, f.ExpiredAt, invalid, expired)
		}
	}
	d2, d3, d9 := may(2), may(3), may(9)
	check("ann", &d3, &d3)
	check("bob", &d2, &d3)
	check("dan", &d3, &d9)
	check("carol", nil, nil)
	var got []string
	for _, v := range versions {
		got = append(got, v.FactUUID+" "+v.Reason+" "+v.EpisodeUUID+" "+v.RecordTime.Format("02"))
	}
	want := []string{"ann created ep-ann 01", "ann closed_by_record ep-3 03", "bob created ep-bob 01", "bob closed_by_record ep-3 03",
		"bob closed_by_record ep-2 09", "dan closed_by_record ep-3 09", "carol created ep-carol 03"}
	if len(got) != len(want) {
		t.Fatalf("versions %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("version %d: %q, want %q", i, got[i], want[i])
		}
	}
	// Known between the two snapshots, ann is open; after the closing one, closed on day 3.
	between := graph.AsOf(out, versions, may(2), may(2).Add(12*time.Hour))
	if len(between) != 2 || between[0].UUID != "ann" || between[0].InvalidAt != nil {
		t.Errorf("as known on day 2: %+v", between)
	}
	if after := graph.AsOf(out, versions, may(4), may(4)); len(after) != 1 || after[0].UUID != "carol" {
		t.Errorf("true on day 4 as known on day 4: %+v", after)
	}
}
