package evaluation

import (
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
)

// The tiny hand-made graph of the tests: one LoCoMo-like group "s" of four episodes.
//
//	f1 Alice WORKS_AT Kakao   2024-01-08T14:00 – 2024-03-02  [e1]  closed by f2 (closed_by_newer)
//	f2 Alice WORKS_AT Naver   2024-03-02 – open              [e2]
//	f3 Alice LIVES_IN Pangyo  unknown – 2024-05-01           [e3]  "closed" by f4, a stranger
//	f4 Carol LIKES tea        2024-05-01 – open              [e4]
//	f5 Alice WORKS_AT Kakao   unknown – 2024-03-02           [e2]  arrived closed
//
// Entities: Alice, Kakao, Naver, Pangyo, alice (a missed merge), Bob (no fact), Carol, tea.
// Communities: {Alice, Kakao, Naver} and {Carol, tea}.
const tinyGroup = "s"

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func atp(s string) *time.Time {
	t := at(s)
	return &t
}

func tinyGraph() *snapshots.Group {
	g := tinyGroup
	ep := func(key, when, text string) graph.Episode {
		return graph.Episode{UUID: graph.EpisodeID(g, key), GroupID: g, Name: key, Source: graph.SourceMessage,
			Content: text, Speaker: "Alice", ReferenceTime: at(when), RecordKey: key}
	}
	e1 := ep("s/D1:1", "2024-01-08T14:00:00Z", "I work at Kakao.")
	e2 := ep("s/D1:2", "2024-03-10T10:00:00Z", "I left Kakao on March 2 and joined Naver.")
	e3 := ep("s/D1:3", "2024-03-10T10:05:00Z", "I live in Pangyo.")
	e4 := ep("s/D1:4", "2024-05-01T10:00:00Z", "Carol likes tea.")
	ent := func(name string) graph.Entity {
		return graph.Entity{UUID: graph.EntityID(g, name), GroupID: g, Name: name, CreatedAt: at("2024-01-08T14:00:00Z")}
	}
	alice, kakao, naver, pangyo, alice2, bob, carol, tea := ent("Alice"), ent("Kakao"), ent("Naver"), ent("Pangyo"),
		ent("alice"), ent("Bob"), ent("Carol"), ent("tea")
	fact := func(src, dst graph.Entity, pred, text string, valid, invalid *time.Time, eps ...graph.Episode) graph.Fact {
		ids := make([]string, len(eps))
		for i, e := range eps {
			ids[i] = e.UUID
		}
		return graph.Fact{UUID: graph.FactID(g, src.UUID, dst.UUID, pred, text), GroupID: g, SourceUUID: src.UUID,
			TargetUUID: dst.UUID, Name: pred, Fact: text, Episodes: ids, CreatedAt: eps[0].ReferenceTime,
			ValidAt: valid, InvalidAt: invalid, ReferenceTime: eps[0].ReferenceTime}
	}
	f1 := fact(alice, kakao, "WORKS_AT", "Alice works at Kakao.", atp("2024-01-08T14:00:00Z"), atp("2024-03-02T00:00:00Z"), e1)
	f2 := fact(alice, naver, "WORKS_AT", "Alice works at Naver.", atp("2024-03-02T00:00:00Z"), nil, e2)
	f3 := fact(alice, pangyo, "LIVES_IN", "Alice lives in Pangyo.", nil, atp("2024-05-01T00:00:00Z"), e3)
	f4 := fact(carol, tea, "LIKES", "Carol likes tea.", atp("2024-05-01T00:00:00Z"), nil, e4)
	f5 := fact(alice, kakao, "WORKS_AT", "Alice worked at Kakao (until 2024-03-02).", nil, atp("2024-03-02T00:00:00Z"), e2)
	version := func(f graph.Fact, seq int, reason string, ep graph.Episode, invalid *time.Time) graph.FactVersion {
		return graph.FactVersion{FactUUID: f.UUID, GroupID: g, Seq: seq, RecordTime: ep.ReferenceTime, ValidAt: f.ValidAt,
			InvalidAt: invalid, EpisodeUUID: ep.UUID, Reason: reason}
	}
	return &snapshots.Group{ID: g,
		Episodes: []graph.Episode{e1, e2, e3, e4},
		Entities: []graph.Entity{alice, kakao, naver, pangyo, alice2, bob, carol, tea},
		Facts:    []graph.Fact{f1, f2, f3, f4, f5},
		Versions: []graph.FactVersion{
			version(f1, 0, "created", e1, nil), version(f1, 1, "closed_by_newer", e2, f1.InvalidAt),
			version(f2, 0, "created", e2, nil),
			version(f3, 0, "created", e3, nil), version(f3, 1, "closed_by_newer", e4, f3.InvalidAt),
			version(f4, 0, "created", e4, nil),
			version(f5, 0, "arrived_closed", e2, f5.InvalidAt),
		},
		Communities: []graph.Community{
			{UUID: graph.CommunityID(g, []string{alice.UUID, kakao.UUID, naver.UUID}), GroupID: g, Name: "work",
				Members: []string{alice.UUID, kakao.UUID, naver.UUID}},
			{UUID: graph.CommunityID(g, []string{carol.UUID, tea.UUID}), GroupID: g, Name: "tea", Members: []string{carol.UUID, tea.UUID}},
		},
	}
}

// tinyLoCoMo asks four questions of the tiny graph in the LoCoMo format.
const tinyLoCoMo = `[{"sample_id": "s", "conversation": {}, "qa": [
 {"question": "Where does Alice work?", "answer": "Naver", "evidence": ["D1:2"], "category": 4},
 {"question": "What did Alice do at Kakao?", "answer": "Kakao", "evidence": ["D1:1"], "category": 1},
 {"question": "Does Carol like coffee?", "adversarial_answer": "yes", "evidence": ["D1:4"], "category": 5},
 {"question": "Who employs Alice?", "answer": "Naver", "evidence": ["D9:9", "D"], "category": 4}
]}]`

// tinyGold is the gold file of the tiny graph.
const tinyGold = `
relations:
  WORKS_AT: [EMPLOYED_BY]
episodes:
  - group: s
    key: s/D1:1
    says: work at Kakao
    facts:
      - [Alice, WORKS_AT, Kakao, 2024-01-08, 2024-03-02]
  - group: s
    key: s/D1:2
    facts:
      - [alice, EMPLOYED_BY, Naver, 2024-03-02, -]
  - group: s
    at: 2024-03-10T10:05:00Z
    facts:
      - [Alice, LIVES_IN, Pangyo, 2024-03-10, -]
      - [Alice, KNOWS, Bob, -, -]
`
