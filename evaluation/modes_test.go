package evaluation

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
)

// modesGraph is the hand-made corpus of the retrieval modes: one group "m", two sessions of two
// turns, and two facts without embeddings (so every fact ranking is BM25's).
//
//	e1 m/D1:1 Ann: I adopted a dog named Rex.   → f1 Ann OWNS Rex "Ann owns a dog named Rex."
//	e2 m/D1:2 Ben: That is lovely news.
//	e3 m/D2:1 Ann: Rex loves the beach.
//	e4 m/D2:2 Ben: My sister moved to Oslo.     → f2 Ben LIVES_IN Oslo "Ben's sister lives in Oslo."
func modesGraph() *snapshots.Group {
	g := "m"
	ep := func(key, when, speaker, text string) graph.Episode {
		return graph.Episode{UUID: graph.EpisodeID(g, key), GroupID: g, Name: key, Source: graph.SourceMessage,
			Content: text, Speaker: speaker, ReferenceTime: at(when), RecordKey: key}
	}
	e1 := ep("m/D1:1", "2024-01-01T10:00:00Z", "Ann", "I adopted a dog named Rex.")
	e2 := ep("m/D1:2", "2024-01-01T10:01:00Z", "Ben", "That is lovely news.")
	e3 := ep("m/D2:1", "2024-02-01T10:00:00Z", "Ann", "Rex loves the beach.")
	e4 := ep("m/D2:2", "2024-02-01T10:01:00Z", "Ben", "My sister moved to Oslo.")
	ent := func(name string) graph.Entity {
		return graph.Entity{UUID: graph.EntityID(g, name), GroupID: g, Name: name, CreatedAt: at("2024-01-01T10:00:00Z")}
	}
	ann, rex, ben, oslo := ent("Ann"), ent("Rex"), ent("Ben"), ent("Oslo")
	fact := func(src, dst graph.Entity, pred, text string, e graph.Episode) graph.Fact {
		return graph.Fact{UUID: graph.FactID(g, src.UUID, dst.UUID, pred, text), GroupID: g, SourceUUID: src.UUID,
			TargetUUID: dst.UUID, Name: pred, Fact: text, Episodes: []string{e.UUID}, CreatedAt: e.ReferenceTime,
			ValidAt: &e.ReferenceTime, ReferenceTime: e.ReferenceTime}
	}
	return &snapshots.Group{ID: g, Episodes: []graph.Episode{e1, e2, e3, e4}, Entities: []graph.Entity{ann, rex, ben, oslo},
		Facts: []graph.Fact{fact(ann, rex, "OWNS", "Ann owns a dog named Rex.", e1), fact(ben, oslo, "LIVES_IN", "Ben's sister lives in Oslo.", e4)}}
}

const modesLoCoMo = `[{"sample_id": "m", "qa": [
 {"question": "What is the name of Ann's dog?", "answer": "Rex", "evidence": ["D1:1"], "category": 4},
 {"question": "Where did Ben's sister move?", "answer": "Oslo", "evidence": ["D2:2"], "category": 4},
 {"question": "Who is at the beach with Ann?", "answer": "Rex", "evidence": ["D2:1"], "category": 1},
 {"question": "What lovely news did Ann share?", "answer": "dog", "evidence": ["D1:2"], "category": 1}
]}]`

// TestRetrievalModesByHand scores the four questions of modesLoCoMo at k 1 and 2 in the three
// modes. Every BM25 score below is Lucene's (k1 1.2, b 0.75) with the group's statistics.
//
// Facts (2 documents of 8 terms each: f1 ann owns a dog named rex + ann rex, f2 ben s sister
// lives in oslo + ben oslo): a question matches only the fact sharing its terms, except q1 ("ann"
// and "dog" in f1, "s" in f2; f1 scores 2.375·ln 2 against ln 2).
//
//	q1 Ann's dog → f1 (e1, D1:1): turn, session and answer (Rex) hit, at both k.
//	q2 Ben's sister → f2 (e4, D2:2): all hit.
//	q3 beach with Ann → f1 (from e1, session D1; the evidence is D2:1): turn and session miss,
//	   the answer Rex is in f1.
//	q4 lovely news, Ann → f1 (e1, D1:1; the evidence is D1:2): the turn misses, the session D1
//	   hits, the answer dog is in f1.
//
// Episodes (4 documents, speaker first, average length 5.75): q1 matches e3 ("ann", "the": 2.004)
// above e1 ("ann", "dog": 1.742) above e2 ("is": 1.272): at k 1 e3, from session D2 — turn and
// session miss, but its text says Rex; at k 2 e1 too. q2: e4 ("ben", "sister") then e2: hits.
// q3: e3 ("ann", "the", "beach") first: hits. q4: e2 ("lovely", "news": 2.544) first — turn and
// session hit, but e2 does not say dog; at k 2 e3 (0.732) comes before e1 (0.637), neither says
// dog.
//
// Facts and episodes: the k facts and the k episodes together; every question hits at both k.
func TestRetrievalModesByHand(t *testing.T) {
	ds, err := ReadDataset(context.Background(), "locomo", strings.NewReader(modesLoCoMo), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshots.OpenStore(snapshotstest.Store(t, modesGraph()), false)
	rep, err := Run(context.Background(), snap, Options{Dataset: ds, Embedder: hashing.Embedder{Dims: 8}, Ks: []int{1, 2},
		MinCosine: DefaultMinCosine})
	if err != nil {
		t.Fatal(err)
	}
	rt := rep.Retrieval
	// evidence, session and answer hits of "all" at k 1 and 2, of 4 questions with evidence and answers.
	want := map[string][3][]int{
		ModeFacts:         {{2, 2}, {3, 3}, {4, 4}},
		ModeEpisodes:      {{3, 4}, {3, 4}, {3, 3}},
		ModeFactsEpisodes: {{4, 4}, {4, 4}, {4, 4}},
	}
	got := map[string]Recall{ModeFacts: rt.Categories[len(rt.Categories)-1]}
	for _, b := range rt.Baselines {
		got[b.Mode] = b.Categories[len(b.Categories)-1]
	}
	if len(got) != 3 {
		t.Fatalf("modes %v, want facts, facts+episodes, episodes", rt.Baselines)
	}
	for mode, w := range want {
		c := got[mode]
		if c.Questions != 4 || c.WithEvidence != 4 || c.WithAnswer != 4 || !slices.Equal(c.EvidenceHits, w[0]) ||
			!slices.Equal(c.SessionHits, w[1]) || !slices.Equal(c.AnswerHits, w[2]) {
			t.Errorf("%s: %d questions (%d with evidence, %d with answers), evidence %v, session %v, answer %v; want 4 (4, 4), %v",
				mode, c.Questions, c.WithEvidence, c.WithAnswer, c.EvidenceHits, c.SessionHits, c.AnswerHits, w)
		}
	}
	if c := got[ModeFacts]; !near(c.SessionRecall[0], 0.75) || !near(c.EvidenceRecall[0], 0.5) {
		t.Errorf("facts: session recall@1 %v (want 3/4), evidence recall@1 %v (want 1/2)", c.SessionRecall[0], c.EvidenceRecall[0])
	}
	// Per question: q4 in facts mode misses the turn and hits the session; in episodes mode q1
	// misses both at k 1 and hits both at k 2.
	q4, q1 := rt.PerQuestion[3], rt.PerQuestion[0]
	if !slices.Equal(q4.EvidenceHits, []bool{false, false}) || !slices.Equal(q4.SessionHits, []bool{true, true}) {
		t.Errorf("q4 facts: evidence %v, session %v", q4.EvidenceHits, q4.SessionHits)
	}
	if len(q1.Baselines) != 2 || q1.Baselines[1].Mode != ModeEpisodes || !slices.Equal(q1.Baselines[1].EvidenceHits, []bool{false, true}) ||
		!slices.Equal(q1.Baselines[1].AnswerHits, []bool{true, true}) {
		t.Errorf("q1 baselines %+v", q1.Baselines)
	}
}

func TestSessionOf(t *testing.T) {
	loc, lme := newDataset("locomo", nil, ":"), newDataset("longmemeval", nil, "/")
	for _, tc := range []struct {
		d         *Dataset
		key, want string
	}{
		{loc, "conv-26/D1:3", "conv-26/D1"},
		{loc, "conv-26/D12:30", "conv-26/D12"},
		{loc, "no-session", ""},
		{lme, "q1/answer_280352e9/3", "q1/answer_280352e9"},
		{lme, "x", ""},
	} {
		if got := tc.d.SessionOf(tc.key); got != tc.want {
			t.Errorf("%s SessionOf(%q) = %q, want %q", tc.d.Name, tc.key, got, tc.want)
		}
	}
}

func TestEpisodeTextPutsTheSpeakerFirstOnce(t *testing.T) {
	for _, tc := range []struct{ speaker, content, want string }{
		{"Ann", "Hi.", "Ann: Hi."},
		{"Ann", "Ann: Hi.", "Ann: Hi."}, // as Graphiti writes a message
		{"", "{\"a\":1}", "{\"a\":1}"},
	} {
		if got := EpisodeText(graph.Episode{Speaker: tc.speaker, Content: tc.content}); got != tc.want {
			t.Errorf("EpisodeText(%q, %q) = %q, want %q", tc.speaker, tc.content, got, tc.want)
		}
	}
}
