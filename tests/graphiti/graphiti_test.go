package graphiti_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graphdiff"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// graphitiPython installs graphiti-core into its cached venv (scripts/graphiti_venv.sh) and
// returns the venv's python.
func graphitiPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", "graphiti_venv.sh")).Output()
	if err != nil {
		msg := "installing graphiti-core (scripts/graphiti_venv.sh): " + err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += "\n" + string(ee.Stderr)
		}
		if os.Getenv(testenv.EnvSkipIntegration) == "1" {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	return strings.TrimSpace(string(out))
}

// idxOf finds the idx graphiti-core gave a fact in a resolve_edge prompt.
func idxOf(user, fact string) string {
	m := regexp.MustCompile(`'idx': (\d+), 'fact': '` + regexp.QuoteMeta(fact) + `'`).FindStringSubmatch(user)
	if m == nil {
		return ""
	}
	return m[1]
}

// script is what the stub model answers for the three chat messages of testdata/chat.jsonl.
func script() []harness.GraphitiRule {
	ents := func(names ...string) string {
		var parts []string
		for _, n := range names {
			parts = append(parts, `{"name":"`+n+`","entity_type_id":0}`)
		}
		return `{"extracted_entities":[` + strings.Join(parts, ",") + `]}`
	}
	edge := func(src, rel, dst, fact, valid string) string {
		return `{"edges":[{"source_entity_name":"` + src + `","target_entity_name":"` + dst + `","relation_type":"` + rel +
			`","fact":"` + fact + `","valid_at":"` + valid + `","invalid_at":null}]}`
	}
	return []harness.GraphitiRule{
		{Task: "ExtractedEntities", Section: "CURRENT MESSAGE", Contains: "I work at Acme", Answer: ents("Alice", "Acme")},
		{Task: "ExtractedEntities", Section: "CURRENT MESSAGE", Contains: "I live in Paris", Answer: ents("Alice", "Paris")},
		{Task: "ExtractedEntities", Section: "CURRENT MESSAGE", Contains: "joined Globex", Answer: ents("Alice", "Globex")},
		{Task: "ExtractedEdges", Section: "CURRENT_MESSAGE", Contains: "I work at Acme",
			Answer: edge("Alice", "WORKS_AT", "Acme", "Alice works at Acme", "2024-01-01T09:00:00Z")},
		{Task: "ExtractedEdges", Section: "CURRENT_MESSAGE", Contains: "I live in Paris",
			Answer: edge("Alice", "LIVES_IN", "Paris", "Alice lives in Paris", "2024-02-01T09:00:00Z")},
		{Task: "ExtractedEdges", Section: "CURRENT_MESSAGE", Contains: "joined Globex",
			Answer: edge("Alice", "WORKS_AT", "Globex", "Alice works at Globex", "2024-03-01T09:00:00Z")},
		// The Globex fact ends the Acme one, whatever idx graphiti-core gave it.
		{Task: "EdgeDuplicate", Section: "NEW FACT", Contains: "Alice works at Globex", Reply: func(user string) string {
			idx := idxOf(user, "Alice works at Acme")
			if idx == "" {
				return `{"duplicate_facts":[],"contradicted_facts":[]}`
			}
			return `{"duplicate_facts":[],"contradicted_facts":[` + idx + `]}`
		}},
	}
}

// buildWithGraphiti has graphiti-core's add_episode write testdata/chat.jsonl into the Neo4j at
// uri (scripts/eval_graphiti.py through its shim), answered by the scripted stub; it returns the
// script's output directory.
func buildWithGraphiti(t *testing.T, uri string, stub *harness.GraphitiStub) string {
	t.Helper()
	root := repoRoot(t)
	out := t.TempDir()
	cmd := exec.Command(graphitiPython(t), filepath.Join(root, "scripts", "eval_graphiti.py"), "--mode", "add_episode",
		"--out", out, "--jsonl", filepath.Join(root, "tests", "graphiti", "testdata", "chat.jsonl")+":message:chat",
		"--llm-url", stub.URL, "--model", "stub", "--embedder-url", stub.URL, "--dims", "256")
	cmd.Env = append(os.Environ(), "BACKFILL_NEO4J_URI="+uri)
	log, err := cmd.CombinedOutput()
	t.Logf("eval_graphiti.py:\n%s", log)
	if err != nil {
		t.Fatalf("eval_graphiti.py: %v", err)
	}
	return out
}

// TestGraphitiWritesAGraphThatEvalAndDiffRead has graphiti-core's own add_episode write the three
// messages of testdata/chat.jsonl into a real Neo4j (the stub model answering its prompts from
// script()), then scores that graph with `backfill eval` over Bolt and compares it with
// backfill's graph of the same messages with `backfill diff`; every number is worked out by
// hand in the comments.
func TestGraphitiWritesAGraphThatEvalAndDiffRead(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	ctx := context.Background()
	if err := harness.ClearNeo4j(ctx, uri); err != nil {
		t.Fatal(err)
	}
	stub := harness.StartGraphitiStub(t, 256, script()...)
	buildWithGraphiti(t, uri, stub)
	if calls := stub.Calls(); calls["ExtractedEntities"] != 3 || calls["ExtractedEdges"] != 3 || calls["EdgeDuplicate"] == 0 {
		t.Fatalf("graphiti-core's calls %v: want an entity and an edge extraction per episode and the edge resolution", calls)
	}
	bin := harness.BuildBinary(t)
	dir := filepath.Join(repoRoot(t), "tests", "graphiti", "testdata")
	tmp := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		res, err := harness.Run(ctx, bin, args, harness.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if res.Code != 0 {
			t.Fatalf("backfill %s: exit %d\n%s%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
		}
	}

	// The Graphiti graph: facts Alice WORKS_AT Acme (valid 2024-01-01T09:00, closed by graphiti-core
	// at the Globex fact's valid_at, 2024-03-01T09:00, when the stub calls it contradicted), Alice
	// LIVES_IN Paris (2024-02-01T09:00, open), Alice WORKS_AT Globex (2024-03-01T09:00, open). The
	// gold has 4 facts, France among them: 3 matched, precision 3/3, recall 3/4, F1 6/7; valid_at
	// right 3 of 3; invalid_at right 2 of 3 (Acme: the gold's 2024-02-20 is not 2024-03-01), so
	// closed at the wrong time 1; wrongly closed 0 of the 2 open in the gold; closures missed 0 of 1.
	evalJSON := filepath.Join(tmp, "eval.json")
	run("eval", "job.yaml@"+uri, "--gold", "gold.yaml", "--dataset", "locomo", "questions.json", "--k", "2", "--json", evalJSON)
	var rep evaluation.Report
	harness.ReadJSON(t, evalJSON, &rep)
	g := rep.Gold
	if g == nil || g.GoldFacts != 4 || g.GraphFacts != 3 || g.Matched != 3 || g.Precision != 1 || g.Recall != 0.75 ||
		!near(g.F1, 6.0/7) || g.ValidAtCorrect != 3 || g.InvalidAtCorrect != 2 || g.ClosedWrongTime != 1 ||
		g.WronglyClosed != 0 || g.MatchedOpen != 2 || g.ClosuresMissed != 0 || g.MatchedClosed != 1 {
		t.Errorf("gold scores of the Graphiti graph: %+v", g)
	}
	if h := rep.Health; h.Groups != 1 || h.Episodes != 3 || h.Entities != 4 || h.Facts != 3 {
		t.Errorf("health of the Graphiti graph: %+v, want 1 group, 3 episodes, 4 entities, 3 facts", h)
	}
	// Retrieval at k 2, asked after the last episode (2024-03-01T09:00): the Acme fact ended then,
	// so the facts are Paris and Globex, both retrieved: each question finds its evidence turn,
	// session and answer. BM25 over the episodes: "Where does Alice work now?" shares alice and
	// work with "Alice: I work at Acme." and alice alone with the other two, of which the shorter
	// ("Alice: I live in Paris.", 5 terms against 11) ranks higher: the two episodes of session D1,
	// not D2:1 — a miss on turn, session and answer. "Where does Alice live?" finds D1:2 first.
	// With the facts beside the episodes (Graphiti's 2k items), both questions hit. (The modes
	// that use the episodes' embeddings depend on the stub's hashing vectors and are not checked
	// here; evaluation's TestRetrievalModesByHand checks them with a fixed embedder.)
	want := map[string][3]int{evaluation.ModeFacts: {2, 2, 2}, evaluation.ModeCombined: {2, 2, 2}, evaluation.ModeEpisodesBM25: {1, 1, 1}}
	rt := rep.Retrieval
	if rt == nil || len(rt.Baselines) != 5 {
		t.Fatalf("retrieval report %+v: want the facts and five other modes", rt)
	}
	got := map[string]evaluation.Recall{evaluation.ModeFacts: rt.Categories[len(rt.Categories)-1]}
	for _, b := range rt.Baselines {
		got[b.Mode] = b.Categories[len(b.Categories)-1]
	}
	for mode, w := range want {
		c := got[mode]
		if c.WithEvidence != 2 || c.EvidenceHits[0] != w[0] || c.SessionHits[0] != w[1] || c.AnswerHits[0] != w[2] {
			t.Errorf("%s: evidence %v, session %v, answer %v of %d, want %v of 2", mode, c.EvidenceHits, c.SessionHits, c.AnswerHits, c.WithEvidence, w)
		}
	}
	if rt.EvidenceMissing != 0 {
		t.Errorf("%d evidence keys name no episode: the episode names are not read as record keys", rt.EvidenceMissing)
	}

	// backfill's graph of the same messages (offline responder) against the Graphiti graph. The
	// entities carry the same names, so none is added, removed, renamed, merged or split; each of
	// Graphiti's facts has its counterpart by endpoints and predicate (none removed), backfill adds
	// none (its "worked at Acme (until 2024-02-20)" is a tense duplicate, merged into the Acme
	// employment), and the Acme fact's invalid_at differs (backfill: the day Alice left,
	// Graphiti: the Globex fact's valid_at).
	run("run", "job.yaml", "--checkpoint", filepath.Join(tmp, "backfill.db"))
	diffJSON := filepath.Join(tmp, "diff.json")
	run("diff", uri, "job.yaml@"+filepath.Join(tmp, "backfill.db"), "--gold", "gold.yaml", "--json", diffJSON)
	var diff struct {
		Report graphdiff.Report `json:"report"`
	}
	harness.ReadJSON(t, diffJSON, &diff)
	c := diff.Report.Totals
	if c.EntitiesAdded != 0 || c.EntitiesRemoved != 0 || c.EntitiesRenamed != 0 || c.EntitiesMerged != 0 || c.EntitiesSplit != 0 ||
		c.FactsRemoved != 0 || c.FactsAdded != 0 || c.InvalidAtChanged != 1 {
		t.Errorf("diff totals %+v", c)
	}
	// diff --gold scores A as eval did, and B: 3 facts, all matched: precision 1, recall 3/4.
	gc := diff.Report.Gold
	if gc == nil || gc.Episodes != 3 || !near(gc.A.F1, 6.0/7) || gc.A.Precision != 1 || gc.B.Precision != 1 || gc.B.Recall != 0.75 {
		t.Errorf("diff --gold: %+v", gc)
	}
}

// TestGraphitiFailedEpisodeIsKeptBare: when graphiti-core's add_episode fails (the stub answers
// the second message's edge extraction with text that is not JSON, on every retry),
// eval_graphiti.py records the failure and stores the episode alone, so `backfill eval --gold`
// reads every gold episode and counts that episode's facts as missed: of the 4 gold facts, Acme
// and Globex are matched (precision 2/2, recall 2/4).
func TestGraphitiFailedEpisodeIsKeptBare(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	ctx := context.Background()
	if err := harness.ClearNeo4j(ctx, uri); err != nil {
		t.Fatal(err)
	}
	broken := harness.GraphitiRule{Task: "ExtractedEdges", Section: "CURRENT_MESSAGE", Contains: "I live in Paris", Answer: "this is not JSON"}
	stub := harness.StartGraphitiStub(t, 256, append([]harness.GraphitiRule{broken}, script()...)...)
	out := buildWithGraphiti(t, uri, stub)
	var summary struct {
		Done, Failed int
		Failures     []struct{ Name, Error, Where string }
	}
	harness.ReadJSON(t, filepath.Join(out, "summary.json"), &summary)
	if summary.Done != 3 || summary.Failed != 1 || len(summary.Failures) != 1 || summary.Failures[0].Name != "g1/D1:2" ||
		summary.Failures[0].Where == "" {
		t.Fatalf("summary %+v: want 3 done, g1/D1:2 failed with where it failed", summary)
	}
	dir := filepath.Join(repoRoot(t), "tests", "graphiti", "testdata")
	evalJSON := filepath.Join(t.TempDir(), "eval.json")
	res, err := harness.Run(ctx, harness.BuildBinary(t), []string{"eval", uri, "--gold", "gold.yaml", "--json", evalJSON}, harness.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("eval: exit %d\n%s", res.Code, res.Stderr)
	}
	var rep evaluation.Report
	harness.ReadJSON(t, evalJSON, &rep)
	if g := rep.Gold; g.GoldFacts != 4 || g.GraphFacts != 2 || g.Matched != 2 || g.Precision != 1 || g.Recall != 0.5 {
		t.Errorf("gold %+v: want 2 of 4 matched by 2 graph facts", g)
	}
	if rep.Health.Episodes != 3 {
		t.Errorf("%d episodes in the graph, want 3 (the failed one alone)", rep.Health.Episodes)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
