package evaluation

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func tinySnapshot(t *testing.T) snapshots.Snapshot {
	t.Helper()
	return snapshots.OpenStore(snapshotstest.Store(t, tinyGraph()), false)
}

func writeGold(t *testing.T, text string) *Gold {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gold.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadGold(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func tinyRun(t *testing.T) *Report {
	t.Helper()
	ds, err := ReadDataset(context.Background(), "locomo", strings.NewReader(tinyLoCoMo), nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), tinySnapshot(t), Options{Dataset: ds, Embedder: hashing.Embedder{Dims: 8},
		Ks: []int{2, 1}, MinCosine: DefaultMinCosine, Gold: writeGold(t, tinyGold), GoldFile: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestHealthByHand(t *testing.T) {
	h := tinyRun(t).Health
	// 4 episodes, 8 entities, 5 facts; valid_at known for f1, f2, f4; closed f1, f3, f5;
	// "alice" collides with "Alice"; "alice" and Bob have no fact; f3 is closed by f4 (which
	// shares no endpoint with it), f1 by f2 (which does).
	want := Health{Groups: 1, Episodes: 4, Entities: 8, Facts: 5, Communities: 2, EntitiesPerEpisode: 2, FactsPerEpisode: 1.25,
		FactsWithValidAt: 3, ValidAtShare: 0.6, FactsClosed: 3, ClosedShare: 0.6, NameCollisions: 1, EntitiesWithoutFacts: 2}
	got := h
	got.Collisions, got.ClosedByStranger, got.ClosuresUnattributed, got.CommunitySizes = nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("health\n got %+v\nwant %+v", got, want)
	}
	if h.ClosedByStranger == nil || *h.ClosedByStranger != 1 || h.ClosuresUnattributed == nil || *h.ClosuresUnattributed != 0 {
		t.Errorf("closed by a stranger %v, unattributed %v; want 1 and 0", h.ClosedByStranger, h.ClosuresUnattributed)
	}
	if len(h.CommunitySizes) != 2 || h.CommunitySizes[3] != 1 || h.CommunitySizes[2] != 1 {
		t.Errorf("community sizes %v, want one of 3 and one of 2", h.CommunitySizes)
	}
	if len(h.Collisions) != 1 || h.Collisions[0] != "s: Alice / alice" {
		t.Errorf("collisions %v", h.Collisions)
	}
}

func TestRetrievalByHand(t *testing.T) {
	rt := tinyRun(t).Retrieval
	// The questions are asked at the last episode (2024-05-01T10:00): only f2 (Naver) and f4
	// (Carol likes tea) are valid then. The facts have no embeddings, so every ranking is BM25's.
	//   q1 "Where does Alice work?" (single-hop, evidence D1:2, answer Naver): "alice" finds f2,
	//      from e2: evidence and answer hits at k=1 and 2.
	//   q2 "What did Alice do at Kakao?" (multi-hop, evidence D1:1, answer Kakao): f2 again, whose
	//      episode is e2 and which does not say Kakao: misses at both k.
	//   q3 adversarial (apart), evidence D1:4: "carol" finds f4, from e4: a hit.
	//   q4 "Who employs Alice?" (single-hop, evidence D9:9 names no episode, "D" is unreadable):
	//      not in the evidence recall; its answer Naver is in f2: answer hits.
	if len(rt.Ks) != 2 || rt.Ks[0] != 1 || rt.Ks[1] != 2 {
		t.Fatalf("k %v, want sorted [1 2]", rt.Ks)
	}
	want := map[string]Recall{
		"single-hop": {Questions: 2, WithEvidence: 1, WithAnswer: 2, EvidenceHits: []int{1, 1}, AnswerHits: []int{2, 2}},
		"multi-hop":  {Questions: 1, WithEvidence: 1, WithAnswer: 1, EvidenceHits: []int{0, 0}, AnswerHits: []int{0, 0}},
		"all":        {Questions: 3, WithEvidence: 2, WithAnswer: 3, EvidenceHits: []int{1, 1}, AnswerHits: []int{2, 2}},
	}
	if len(rt.Categories) != 3 {
		t.Fatalf("rows %+v, want single-hop, multi-hop, all", rt.Categories)
	}
	for _, r := range rt.Categories {
		w := want[r.Category]
		if r.Questions != w.Questions || r.WithEvidence != w.WithEvidence || r.WithAnswer != w.WithAnswer ||
			!slices.Equal(r.EvidenceHits, w.EvidenceHits) || !slices.Equal(r.AnswerHits, w.AnswerHits) {
			t.Errorf("%s: got %+v, want %+v", r.Category, r, w)
		}
	}
	all := rt.Categories[2]
	if !near(all.EvidenceRecall[0], 0.5) || !near(all.AnswerRecall[1], 2.0/3) {
		t.Errorf("all: evidence recall@1 %v (want 1/2), answer recall@2 %v (want 2/3)", all.EvidenceRecall[0], all.AnswerRecall[1])
	}
	if len(rt.Apart) != 1 || rt.Apart[0].Category != "adversarial" || !slices.Equal(rt.Apart[0].EvidenceHits, []int{1, 1}) {
		t.Errorf("apart %+v, want the adversarial question with its evidence hit", rt.Apart)
	}
	if rt.EvidenceMissing != 1 || len(rt.Unreadable) != 1 || rt.CosineEmpty != 4 || rt.GroupMissing != 0 {
		t.Errorf("evidence missing %d (want 1), unreadable %v (want 1), cosine empty %d (want 4), group missing %d (want 0)",
			rt.EvidenceMissing, rt.Unreadable, rt.CosineEmpty, rt.GroupMissing)
	}
}

func TestGoldByHand(t *testing.T) {
	g := tinyRun(t).Gold
	// Gold: Alice WORKS_AT Kakao 01-08–03-02 matches f1 exactly (f5, the same fact arrived closed,
	// is a duplicate); EMPLOYED_BY is WORKS_AT, so Naver matches f2 exactly; LIVES_IN Pangyo
	// matches f3, whose start is unknown (gold 03-10) and which is closed (gold open): wrongly
	// closed; Alice KNOWS Bob is missed; f4 (Carol LIKES tea) is an extra.
	//   precision 3/5, recall 3/4, F1 2·0.6·0.75/1.35 = 2/3; valid_at 2/3, invalid_at 2/3;
	//   wrongly closed 1 of the 2 matched facts open in the gold; closures missed 0 of 1.
	want := GoldReport{File: "tiny", Groups: 1, GoldFacts: 4, GraphFacts: 5, Matched: 3, Duplicates: 1,
		ValidAtCorrect: 2, InvalidAtCorrect: 2, IntervalCorrect: 2, MatchedOpen: 2, MatchedClosed: 1, WronglyClosed: 1}
	got := *g
	if got.Groups != want.Groups || got.GoldFacts != want.GoldFacts || got.GraphFacts != want.GraphFacts ||
		got.Matched != want.Matched || got.Duplicates != want.Duplicates || got.ValidAtCorrect != want.ValidAtCorrect ||
		got.InvalidAtCorrect != want.InvalidAtCorrect || got.IntervalCorrect != want.IntervalCorrect ||
		got.MatchedOpen != want.MatchedOpen || got.MatchedClosed != want.MatchedClosed || got.WronglyClosed != want.WronglyClosed ||
		got.ClosuresMissed != 0 || got.ClosedWrongTime != 0 {
		t.Errorf("gold counts\n got %+v\nwant %+v", got, want)
	}
	for name, pair := range map[string][2]float64{"precision": {g.Precision, 0.6}, "recall": {g.Recall, 0.75},
		"F1": {g.F1, 2.0 / 3}, "wrongly closed share": {g.WronglyClosedShare, 0.5}, "interval accuracy": {g.IntervalAccuracy, 2.0 / 3}} {
		if !near(pair[0], pair[1]) {
			t.Errorf("%s %v, want %v", name, pair[0], pair[1])
		}
	}
	if len(g.Misses) != 1 || !strings.Contains(g.Misses[0], "KNOWS Bob") || len(g.Extras) != 1 || !strings.Contains(g.Extras[0], "Carol LIKES tea") {
		t.Errorf("misses %v, extras %v", g.Misses, g.Extras)
	}
}

func TestSameGraphSameReport(t *testing.T) {
	a, b := tinyRun(t), tinyRun(t)
	a.Graph, b.Graph = "", "" // two temporary stores
	var x, y strings.Builder
	a.Markdown(&x)
	b.Markdown(&y)
	if x.String() != y.String() {
		t.Error("two evals of the same graph differ")
	}
}

func TestGoldThatDoesNotFitIsAnError(t *testing.T) {
	for name, text := range map[string]string{
		"missing episode": "episodes:\n  - {group: s, key: s/D7:7, facts: [[Alice, WORKS_AT, Kakao, -, -]]}\n",
		"missing group":   "episodes:\n  - {group: t, key: t/D1:1, facts: [[Alice, WORKS_AT, Kakao, -, -]]}\n",
		"wrong text":      "episodes:\n  - {group: s, key: s/D1:1, says: I work at Naver, facts: []}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Run(context.Background(), tinySnapshot(t), Options{Gold: writeGold(t, text), GoldFile: "g"})
			if err == nil || !strings.Contains(err.Error(), "does not fit the graph") || !strings.Contains(err.Error(), "evaluating checkpoint ") {
				t.Errorf("error %v, want one naming the checkpoint and saying the gold file does not fit", err)
			}
		})
	}
}

// TestGoldKeyMissingFromAGraphWithoutRecordKeys: a gold episode named by its key, missing from a
// group whose episodes were read without record keys (a database graph Graphiti or an older
// loader wrote), says so once, with the count.
func TestGoldKeyMissingFromAGraphWithoutRecordKeys(t *testing.T) {
	gold := writeGold(t, "episodes:\n  - {group: s, key: crm-1, facts: []}\n  - {group: s, key: crm-2, facts: []}\n")
	grp := &snapshots.Group{ID: "s", NamedKeys: 1, Episodes: []graph.Episode{{UUID: "e", GroupID: "s", Name: "records.jsonl:1", RecordKey: "records.jsonl:1"}}}
	_, errs := gold.checkEpisodes(grp)
	if len(errs) != 3 || !strings.Contains(errs[2].Error(), "group s: 1 of its 1 episodes have no record_key property") {
		t.Errorf("errors %v, want two missing episodes and why", errs)
	}
	grp.NamedKeys = 0
	if _, errs := gold.checkEpisodes(grp); len(errs) != 2 {
		t.Errorf("errors %v, want the two missing episodes alone", errs)
	}
}

func TestReadGoldRejects(t *testing.T) {
	fact := func(valid, invalid string) string {
		return "episodes:\n  - {group: s, key: k, facts: [[Alice, WORKS_AT, Kakao, " + valid + ", " + invalid + "]]}\n"
	}
	for name, tc := range map[string]struct{ text, says string }{
		"four items":             {"episodes:\n  - {group: s, key: k, facts: [[Alice, WORKS_AT, Kakao, -]]}\n", "[Alice, WORKS_AT, Kakao, -]"},
		"bad date":               {fact("2024-13-01", "-"), "episodes[0].facts[0] [Alice, WORKS_AT, Kakao, 2024-13-01, -]"},
		"ends too early":         {fact("2024-03-01", "2024-02-01"), "[Alice, WORKS_AT, Kakao, 2024-03-01, 2024-02-01]: the interval ends"},
		"instants the wrong way": {fact("2024-03-01T10:00:00Z", "2024-03-01T09:00:00Z"), "ends (invalid_at 2024-03-01T09:00:00Z) before it starts"},
		"a range ends early":     {fact("2024-05..2024-03", "-"), `"2024-05..2024-03": the range ends before it starts`},
		"key and at":             {"episodes:\n  - {group: s, key: k, at: 2024-01-01T00:00:00Z, facts: []}\n", "exactly one of key and at"},
		"bad group":              {"episodes:\n  - {group: a b, key: k, facts: []}\n", "not a valid group id"},
		"unknown key":            {"episodes:\n  - {group: s, key: k, fact: []}\n", "field fact not found"},
		"two canonicals":         {"relations: {A: [X], B: [X]}\nepisodes:\n  - {group: s, key: k, facts: []}\n", "synonym of both"},
		"empty":                  {"", "the file is empty"},
		"only a comment":         {"# nothing yet\n", "the file is empty"},
		"no episodes":            {"relations: {A: [X]}\n", "no episodes"},
		"truncated":              {"episodes:\n  - {group: s, key: k, facts: [[Alice, WORKS_AT", "did not find expected"},
		"garbage":                {"\x00\x01\x02PK\x03\x04", "gold.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gold.yaml")
			os.WriteFile(path, []byte(tc.text), 0o644)
			_, err := ReadGold(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want one naming %s and saying %q", err, path, tc.says)
			}
		})
	}
}

func TestReadGoldAcceptsIntervalsThatMayHold(t *testing.T) {
	for name, text := range map[string]string{
		"the same day":               "episodes:\n  - {group: s, key: k, facts: [[A, R, B, 2024-03-01, 2024-03-01]]}\n",
		"a day in another time zone": "episodes:\n  - {group: s, key: k, facts: [[A, R, B, 2024-03, \"2024-02-29T12:00:00Z\"]]}\n",
		"an open start":              "episodes:\n  - {group: s, key: k, facts: [[A, R, B, <=2024-03, 2024-01-01]]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gold.yaml")
			os.WriteFile(path, []byte(text), 0o644)
			if _, err := ReadGold(path); err != nil {
				t.Error(err)
			}
		})
	}
}
