package evaluation

import (
	"context"
	"slices"
	"strings"
	"testing"

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

// fixedEmbedder embeds each known text as its vector and anything else as zeros.
type fixedEmbedder map[string][]float32

func (e fixedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if v, ok := e[t]; ok {
			out[i] = v
		} else {
			out[i] = make([]float32, 4)
		}
	}
	return out, nil
}

// modesEmbedder gives each episode of modesGraph its own axis (e1 … e4) and each question a
// vector near the episodes it should find by similarity: q1 e1 then e3, q2 e2 then e4, q3 e3,
// q4 e1 then e2 (every other episode at cosine 0, ranked in episode order).
var modesEmbedder = fixedEmbedder{
	"Ann: I adopted a dog named Rex.": {1, 0, 0, 0},
	"Ben: That is lovely news.":       {0, 1, 0, 0},
	"Ann: Rex loves the beach.":       {0, 0, 1, 0},
	"Ben: My sister moved to Oslo.":   {0, 0, 0, 1},
	"What is the name of Ann's dog?":  {0.9, 0, 0.4, 0},
	"Where did Ben's sister move?":    {0, 0.9, 0, 0.4},
	"Who is at the beach with Ann?":   {0, 0, 1, 0},
	"What lovely news did Ann share?": {0.9, 0.4, 0, 0},
}

// TestRetrievalModesByHand scores the four questions of modesLoCoMo at k 1 and 2 in every
// mode, with the fixed embedder modesEmbedder. Every BM25 score below is Lucene's (k1 1.2, b
// 0.75) with the group's statistics; ties of reciprocal rank fusion (Σ 1/rank) keep the order of
// first appearance, the BM25 (or facts) list first.
//
// Facts (2 documents of 8 terms each: f1 ann owns a dog named rex + ann rex, f2 ben s sister
// lives in oslo + ben oslo; no fact embeddings, so every fact ranking is BM25's): q1 ranks f1
// (2.375·ln 2) then f2 (ln 2, "s"); q2 f2; q3 and q4 f1 ("ann").
//
//	q1 Ann's dog → f1 (e1, D1:1): turn, session and answer (Rex) hit, at both k.
//	q2 Ben's sister → f2 (e4, D2:2): all hit.
//	q3 beach with Ann → f1 (from e1, session D1; the evidence is D2:1): turn and session miss,
//	   the answer Rex is in f1.
//	q4 lovely news, Ann → f1 (e1, D1:1; the evidence is D1:2): the turn misses, the session D1
//	   hits, the answer dog is in f1.
//
// Episodes by BM25 (speaker first, average length 5.75): q1 e3 (2.004), e1 (1.742), e2 (1.272);
// q2 e4 (1.864), e2 (0.732); q3 e3 (3.276), e2 (1.272), e1 (0.637); q4 e2 (2.544), e3 (0.732),
// e1 (0.637). At k 1 q1 gets e3, from session D2 — turn and session miss, but its text says
// Rex; at k 2 e1 too. q4's e2 hits turn and session but does not say dog, nor do e3 (k 2).
//
// Episodes by similarity: q1 e1, e3; q2 e2, e4; q3 e3; q4 e1, e2. At k 1 q2 (e2) misses turn,
// session and answer and q4 (e1) misses the turn but hits session D1 and says dog; at k 2 all
// hit.
//
// Episodes by hybrid (both lists cut at 2k, fused): k 1: q1 e3 and e1 tie at 1.5, e3 first
// (BM25's): turn and session miss, answer hits; q2 e4 and e2 tie, e4 first: all hit; q3 e3;
// q4 e2 (1.5) over e1 (1): turn and session hit, dog is not said. k 2: q1 e3, e1; q2 e4, e2;
// q3 e3, e2; q4 e2 (1.5), e1 (1.333): all hit.
//
// Facts and episodes in k items (the hybrid episodes, each episode's BM25 document followed by its
// facts' sentences): e1 and e4 gain f1's and f2's terms, which moves no question's hits here
// (TestEpisodesFoundByTheirFacts has one that moves).
//
// Facts and episodes at 2k (Graphiti's combined list): the k facts and the k BM25 episodes;
// every question hits at both k.
func TestRetrievalModesByHand(t *testing.T) {
	ds, err := ReadDataset(context.Background(), "locomo", strings.NewReader(modesLoCoMo), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshots.OpenStore(snapshotstest.Store(t, modesGraph()), false)
	rep, err := Run(context.Background(), snap, Options{Dataset: ds, Embedder: modesEmbedder, Ks: []int{1, 2},
		MinCosine: DefaultMinCosine})
	if err != nil {
		t.Fatal(err)
	}
	rt := rep.Retrieval
	// evidence, session and answer hits of "all" at k 1 and 2, of 4 questions with evidence and answers.
	want := map[string][3][]int{
		ModeFacts:          {{2, 2}, {3, 3}, {4, 4}},
		ModeFactsEpisodes:  {{3, 4}, {3, 4}, {3, 4}},
		ModeEpisodesBM25:   {{3, 4}, {3, 4}, {3, 3}},
		ModeEpisodesDense:  {{2, 4}, {3, 4}, {3, 4}},
		ModeEpisodesHybrid: {{3, 4}, {3, 4}, {3, 4}},
		ModeCombined:       {{4, 4}, {4, 4}, {4, 4}},
	}
	got := map[string]Recall{ModeFacts: rt.Categories[len(rt.Categories)-1]}
	for _, b := range rt.Baselines {
		got[b.Mode] = b.Categories[len(b.Categories)-1]
	}
	if len(got) != len(modes) {
		t.Fatalf("modes %v, want %v", rt.Baselines, modes)
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
	// The k items of the graph against each raw mode, question by question: the same as the
	// hybrid episodes; at k 1, one evidence turn more than the dense episodes (3 against 2).
	if len(rt.Paired) != 3 || rt.Paired[2].A != ModeEpisodesHybrid || rt.Paired[2].B != ModeFactsEpisodes ||
		!near(rt.Paired[2].Evidence[0].Change, 0) || rt.Paired[1].A != ModeEpisodesDense || !near(rt.Paired[1].Evidence[0].Change, 0.25) {
		t.Errorf("paired %+v", rt.Paired)
	}
	// Per question: q4 in facts mode misses the turn and hits the session; in episodes mode q1
	// misses both at k 1 and hits both at k 2.
	q4, q1 := rt.PerQuestion[3], rt.PerQuestion[0]
	if !slices.Equal(q4.EvidenceHits, []bool{false, false}) || !slices.Equal(q4.SessionHits, []bool{true, true}) {
		t.Errorf("q4 facts: evidence %v, session %v", q4.EvidenceHits, q4.SessionHits)
	}
	if len(q1.Baselines) != len(modes)-1 || q1.Baselines[1].Mode != ModeEpisodesBM25 || !slices.Equal(q1.Baselines[1].EvidenceHits, []bool{false, true}) ||
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

// TestEpisodesFoundByTheirFacts asks modesGraph "Who owns Rex?": "owns" is only in f1, the fact
// extracted from e1 (the evidence). By BM25 over the raw turns "rex" ranks e3 (5 terms) over e1
// (7 terms); the question's embedding is e3's, so the hybrid episodes are e3 (2) then e1 (1) and
// miss at k 1. With e1's document followed by f1's sentence ("owns", "rex" twice), BM25 ranks e1
// first and the fusion ties e1 and e3 at 1.5, e1 first (the BM25 list's): a hit at k 1.
func TestEpisodesFoundByTheirFacts(t *testing.T) {
	ds, err := ReadDataset(context.Background(), "locomo", strings.NewReader(`[{"sample_id": "m", "qa": [
 {"question": "Who owns Rex?", "answer": "Ann", "evidence": ["D1:1"], "category": 4}]}]`), nil)
	if err != nil {
		t.Fatal(err)
	}
	emb := fixedEmbedder{"Who owns Rex?": {0, 0, 1, 0}}
	for text, v := range modesEmbedder {
		emb[text] = v
	}
	snap := snapshots.OpenStore(snapshotstest.Store(t, modesGraph()), false)
	rep, err := Run(context.Background(), snap, Options{Dataset: ds, Embedder: emb, Ks: []int{1, 2}, MinCosine: DefaultMinCosine})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]int{}
	for _, b := range rep.Retrieval.Baselines {
		got[b.Mode] = b.Categories[len(b.Categories)-1].EvidenceHits
	}
	for mode, want := range map[string][]int{ModeEpisodesHybrid: {0, 1}, ModeEpisodesBM25: {0, 1}, ModeFactsEpisodes: {1, 1}} {
		if !slices.Equal(got[mode], want) {
			t.Errorf("%s evidence hits at k 1, 2 = %v, want %v", mode, got[mode], want)
		}
	}
}
