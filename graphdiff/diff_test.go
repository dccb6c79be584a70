package graphdiff

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/snapshots"
)

const g = "g"

func day(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

func ent(id, name string, labels ...string) graph.Entity {
	return graph.Entity{UUID: id, GroupID: g, Name: name, Labels: labels}
}

func fact(id, src, pred, dst, text string, valid, invalid *time.Time) graph.Fact {
	return graph.Fact{UUID: id, GroupID: g, SourceUUID: src, TargetUUID: dst, Name: pred, Fact: text, Episodes: []string{"e1"},
		ValidAt: valid, InvalidAt: invalid}
}

func mentions(pairs ...string) []graph.Mention {
	var out []graph.Mention
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, graph.Mention{UUID: pairs[i] + "/" + pairs[i+1], GroupID: g, EpisodeUUID: pairs[i], EntityUUID: pairs[i+1]})
	}
	return out
}

func episodes(ids ...string) []graph.Episode {
	var out []graph.Episode
	for _, id := range ids {
		out = append(out, graph.Episode{UUID: id, GroupID: g, Content: "text of " + id})
	}
	return out
}

// TestDiffByHand: in B, "Al" merged into Alice, Bob renamed Robert (a new id), Seoul split into
// Seoul and Seoul City, Kakao lost its label, Alice got another summary; Alice's Kakao fact is
// closed by a new Naver fact, the Seoul and Bob facts got new sentences on the moved entities;
// the community gained Naver.
func TestDiffByHand(t *testing.T) {
	eps := episodes("e1", "e2", "e3", "e4", "e5", "e6", "e7")
	alice, al, kakao, bob, robert := ent("alice", "Alice"), ent("al", "Al"), ent("kakao", "Kakao", "Organization"), ent("bob", "Bob"), ent("robert", "Robert")
	seoul, seoulCity, naver := ent("seoul", "Seoul"), ent("seoul-city", "Seoul City"), ent("naver", "Naver")
	aliceB, kakaoB := alice, kakao
	aliceB.Summary, kakaoB.Labels = "Alice works at Naver.", nil
	a := &snapshots.Group{ID: g, Episodes: eps,
		Entities: []graph.Entity{alice, al, kakao, bob, seoul, naver},
		Mentions: mentions("e1", "alice", "e1", "kakao", "e2", "al", "e2", "kakao", "e3", "bob", "e4", "alice", "e5", "seoul", "e6", "seoul", "e7", "naver"),
		Facts: []graph.Fact{
			fact("f1", "alice", "WORKS_AT", "kakao", "Alice works at Kakao.", day("2024-01-08"), nil),
			fact("f2", "al", "LIVES_IN", "seoul", "Al lives in Seoul.", day("2024-01-01"), nil),
			fact("f3", "bob", "KNOWS", "alice", "Bob knows Alice.", nil, nil),
		},
		Communities: []graph.Community{{UUID: "c1", GroupID: g, Name: "work", Members: []string{"al", "alice", "kakao"}}},
	}
	b := &snapshots.Group{ID: g, Episodes: eps,
		Entities: []graph.Entity{aliceB, kakaoB, robert, seoul, seoulCity, naver},
		Mentions: mentions("e1", "alice", "e1", "kakao", "e2", "alice", "e2", "kakao", "e3", "robert", "e4", "alice", "e5", "seoul", "e6", "seoul-city", "e7", "naver"),
		Facts: []graph.Fact{
			fact("f1", "alice", "WORKS_AT", "kakao", "Alice works at Kakao.", day("2024-01-08"), day("2024-03-02")),
			fact("f2b", "alice", "LIVES_IN", "seoul", "Alice lives in Seoul.", day("2024-01-01"), nil),
			fact("f3b", "robert", "KNOWS", "alice", "Robert knows Alice.", nil, nil),
			fact("f4", "alice", "WORKS_AT", "naver", "Alice works at Naver.", day("2024-03-02"), nil),
		},
		Communities: []graph.Community{{UUID: "c2", GroupID: g, Name: "work", Members: []string{"alice", "kakao", "naver"}}},
	}
	top := &notables{limit: 3}
	d := diffGroup(a, b, top)
	want := Counts{EntitiesRenamed: 1, EntitiesMerged: 1, EntitiesSplit: 1, LabelsChanged: 1, SummariesChanged: 1,
		FactsAdded: 1, SentenceChanged: 2, InvalidAtChanged: 1, NewlyClosed: 1, CommunitiesChanged: 1}
	if d.Counts != want {
		t.Errorf("counts\n got %+v\nwant %+v", d.Counts, want)
	}
	byKind := map[string]EntityChange{}
	for _, e := range d.Entities {
		byKind[e.Kind] = e
	}
	if m := byKind["merged"]; !slices.Equal(m.B, []string{"Alice"}) || !slices.Equal(m.A, []string{"Alice", "Al"}) || !slices.Equal(m.Episodes, []string{"e2"}) {
		t.Errorf("merge %+v, want Al into Alice through e2", m)
	}
	if r := byKind["renamed"]; !slices.Equal(r.A, []string{"Bob"}) || !slices.Equal(r.B, []string{"Robert"}) {
		t.Errorf("rename %+v, want Bob → Robert", r)
	}
	if s := byKind["split"]; !slices.Equal(s.A, []string{"Seoul"}) || !slices.Equal(s.B, []string{"Seoul", "Seoul City"}) || !slices.Equal(s.Episodes, []string{"e6"}) {
		t.Errorf("split %+v, want Seoul into Seoul and Seoul City through e6", s)
	}
	var closed FactChange
	for _, f := range d.Facts {
		if slices.Contains(f.What, "closed") {
			closed = f
		}
	}
	if closed.Triple != "Alice WORKS_AT Kakao" || closed.ClosedBy != "Alice works at Naver." {
		t.Errorf("newly closed %+v, want the Kakao fact closed by the Naver fact", closed)
	}
	if c := d.Communities; len(c) != 1 || c[0].Kind != "changed" || !slices.Equal(c[0].Joined, []string{"Naver"}) || c[0].Jaccard != 2.0/3 {
		t.Errorf("communities %+v, want one changed, Naver joined, Jaccard 2/3", c)
	}
	// The most important change is the closure, then the merge and split; each shows its episode.
	if len(top.list) != 3 || !strings.Contains(top.list[0].Kind, "closed") || top.list[0].AEpisode != "0001-01-01T00:00:00Z: text of e1" {
		t.Errorf("top %+v", top.list)
	}
}

func TestDiffOfAGroupWithItselfIsEmpty(t *testing.T) {
	x := &snapshots.Group{ID: g, Episodes: episodes("e1"), Entities: []graph.Entity{ent("a", "A"), ent("b", "B")},
		Mentions: mentions("e1", "a", "e1", "b"), Facts: []graph.Fact{fact("f", "a", "R", "b", "A r B.", day("2024-01-01"), day("2024-02-01"))},
		Communities: []graph.Community{{UUID: "c", GroupID: g, Members: []string{"a", "b"}}}}
	if d := diffGroup(x, x, &notables{limit: 5}); !d.Counts.Empty() || len(d.Entities)+len(d.Facts)+len(d.Communities) > 0 {
		t.Errorf("diff of a group with itself: %+v", d)
	}
	if d := diffGroup(x, nil, &notables{limit: 5}); d.OnlyIn != "a" || d.Counts.EntitiesRemoved != 2 || d.Counts.FactsRemoved != 1 || d.Counts.CommunitiesRemoved != 1 {
		t.Errorf("group only in A: %+v", d)
	}
}

// TestNoRunsNamesTheKindOfGraph: a side without runs says what it is, and that its usage is not
// compared unless it is a checkpoint (written before runs were recorded).
func TestNoRunsNamesTheKindOfGraph(t *testing.T) {
	r := &Report{A: "checkpoint a.db", B: "Neo4j graph bolt://h:7687", KindA: snapshots.KindCheckpoint, KindB: snapshots.KindNeo4j,
		UsageA: &Usage{Runs: 1, Temporal: &report.Temporal{}}}
	var sum, md strings.Builder
	r.Summary(&sum)
	r.Markdown(&md)
	for _, want := range []string{"llm B: not compared: a Neo4j graph records no runs", "B: not compared: a Neo4j graph records no runs"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	if !strings.Contains(md.String(), "| B: not compared: a Neo4j graph records no runs") {
		t.Errorf("markdown does not say why B has no usage:\n%s", md.String())
	}
	if got := usageLine(nil, snapshots.KindCheckpoint); !strings.Contains(got, "written before runs were recorded") {
		t.Errorf("a checkpoint without runs: %q", got)
	}
	if got := usageLine(nil, snapshots.KindExport); got != "not compared: a Parquet export records no runs (the checkpoint that built it does)" {
		t.Errorf("an export: %q", got)
	}
}
