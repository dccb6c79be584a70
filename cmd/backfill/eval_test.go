package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/providers/stub"
)

// evalJSON runs eval with --json and returns the exit code, the summary and the report.
func evalJSON(t *testing.T, args ...string) (int, string, *evaluation.Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "eval.json")
	code, out := backfill(t.Context(), append([]string{"eval"}, append(args, "--json", path)...)...)
	var rep evaluation.Report
	if code == exitOK || code == exitPartial {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
	}
	return code, out, &rep
}

// TestGoldFilesFitTheirGraphs builds the demo and the gold set with the offline responder and
// scores each against its gold file: every gold episode is found, the scores are the same on a
// second eval, and the summary names the gold scores.
func TestGoldFilesFitTheirGraphs(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, tc := range []struct{ job, gold string }{
		{"jobs/examples/demo.yaml", "examples/gold/demo.yaml"},
		{"jobs/examples/gold.yaml", "examples/gold/gold.yaml"},
	} {
		t.Run(filepath.Base(tc.gold), func(t *testing.T) {
			ck := filepath.Join(t.TempDir(), "g.db")
			if code, _ := backfill(t.Context(), "run", tc.job, "--checkpoint", ck); code != exitOK {
				t.Fatalf("run: exit %d", code)
			}
			code, summary, a := evalJSON(t, tc.job, "--checkpoint", ck, "--gold", tc.gold)
			if code != exitOK {
				t.Fatalf("eval: exit %d", code)
			}
			g := a.Gold
			if g == nil || g.GoldFacts == 0 || g.Matched == 0 || g.Matched > g.GoldFacts || g.Matched > g.GraphFacts {
				t.Fatalf("gold report %+v", g)
			}
			// The episode counts add up to the totals, and the spread holds the F1.
			var gold, graph, matched int
			for _, e := range g.PerEpisode {
				gold, graph, matched = gold+e.GoldFacts, graph+e.GraphFacts, matched+e.Matched
			}
			if gold != g.GoldFacts || graph != g.GraphFacts || matched != g.Matched {
				t.Errorf("episode counts add up to %d gold, %d graph, %d matched; totals %d, %d, %d", gold, graph, matched, g.GoldFacts, g.GraphFacts, g.Matched)
			}
			if sp := g.Spread; sp == nil || sp.Episodes != len(g.PerEpisode) || sp.F1[0] > g.F1 || g.F1 > sp.F1[1] {
				t.Errorf("spread %+v of F1 %v over %d episodes", sp, g.F1, len(g.PerEpisode))
			}
			if !strings.Contains(summary, "precision") || !strings.Contains(summary, "wrongly closed") || !strings.Contains(summary, "95% interval") {
				t.Errorf("summary without the gold scores:\n%s", summary)
			}
			_, _, b := evalJSON(t, tc.job, "--checkpoint", ck, "--gold", tc.gold)
			x, _ := json.Marshal(a)
			y, _ := json.Marshal(b)
			if !bytes.Equal(x, y) {
				t.Error("a second eval of the same graph gives other scores")
			}
		})
	}
}

// TestEvalQANeedsAModel: with the offline provider --qa says so and exits 2.
func TestEvalQANeedsAModel(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	ck := filepath.Join(t.TempDir(), "demo.db")
	if code, _ := backfill(t.Context(), "run", "jobs/examples/demo.yaml", "--checkpoint", ck); code != exitOK {
		t.Fatalf("run: exit %d", code)
	}
	data := filepath.Join(t.TempDir(), "locomo.json")
	os.WriteFile(data, []byte(qaLoCoMo), 0o644)
	if code, _, _ := evalJSON(t, "jobs/examples/demo.yaml", "--checkpoint", ck, "--dataset", "locomo", data, "--qa"); code != exitUsage {
		t.Errorf("--qa with the offline provider: exit %d, want %d", code, exitUsage)
	}
}

// qaLoCoMo is a two-session LoCoMo sample with two questions.
const qaLoCoMo = `[{"sample_id": "conv-t", "conversation": {"speaker_a": "Alice", "speaker_b": "Ben",
 "session_1_date_time": "1:56 pm on 8 May, 2023",
 "session_1": [{"speaker": "Alice", "dia_id": "D1:1", "text": "I work at Kakao now."},
               {"speaker": "Ben", "dia_id": "D1:2", "text": "I moved to Seattle last month."}],
 "session_2_date_time": "10:00 am on 20 June, 2023",
 "session_2": [{"speaker": "Alice", "dia_id": "D2:1", "text": "I left Kakao on June 2 and joined Naver."}]},
 "qa": [{"question": "Where does Alice work?", "answer": "Naver", "evidence": ["D2:1"], "category": 4},
        {"question": "Where does Ben live?", "answer": "Seattle", "evidence": ["D1:2"], "category": 1},
        {"question": "Is Ben a pilot?", "adversarial_answer": "yes", "evidence": ["D1:2"], "category": 5}]}]`

// TestEvalQAThroughTheStub runs a LoCoMo job and eval --qa against providers/stub: both questions with
// an answer are asked and graded, a second eval answers everything from the cache, and a tiny
// budget stops QA with exit 3.
func TestEvalQAThroughTheStub(t *testing.T) {
	s := stub.New(stub.Options{})
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	data := filepath.Join(dir, "locomo.json")
	job := filepath.Join(dir, "qa.yaml")
	os.WriteFile(data, []byte(qaLoCoMo), 0o644)
	os.WriteFile(job, []byte(fmt.Sprintf(`name: qa
checkpoint: %s/qa.db
record_time: reference
sources:
  - {path: %s, format: locomo}
llm: {provider: openai, base_url: %s/v1, model: gpt-4o-mini, concurrency: 4}
embedder: {provider: openai, base_url: %s/v1, model: text-embedding-3-small, dimensions: 32}
`, dir, data, srv.URL, srv.URL)), 0o644)
	code, _ := backfill(t.Context(), "run", job)
	if code != exitOK {
		t.Fatalf("run: exit %d", code)
	}
	before := s.Stats().ChatCalls
	code, summary, rep := evalJSON(t, job, "--dataset", "locomo", data, "--qa", "--k", "5")
	if code != exitOK {
		t.Fatalf("eval --qa: exit %d", code)
	}
	if rep.QA == nil || rep.QA.Questions != 2 || rep.QA.K != 5 {
		t.Fatalf("qa report %+v, want the 2 questions with an answer, top 5", rep.QA)
	}
	if asked := s.Stats().ChatCalls - before; asked != 4 {
		t.Errorf("%d chat calls, want 4 (an answer and a grade per question)", asked)
	}
	if rep.LLM == nil || rep.LLM.PromptTokens == 0 || rep.LLM.CostUSD <= 0 {
		t.Errorf("eval usage %+v, want tokens and a cost", rep.LLM)
	}
	if !strings.Contains(summary, "qa: ") {
		t.Errorf("summary without QA:\n%s", summary)
	}
	before = s.Stats().Calls
	if code, _, again := evalJSON(t, job, "--dataset", "locomo", data, "--qa", "--k", "5"); code != exitOK || again.QA.Correct != rep.QA.Correct ||
		again.LLM.Calls != 0 || again.LLM.CacheHits == 0 {
		t.Errorf("second eval: exit %d, qa %+v, usage %+v; want the same verdicts, all from the cache", code, again.QA, again.LLM)
	}
	if n := s.Stats().Calls - before; n != 0 {
		t.Errorf("second eval made %d requests, want 0", n)
	}
	// Another model misses the cache; the budget admits no call.
	code, _, stopped := evalJSON(t, job, "--dataset", "locomo", data, "--qa", "--set", "llm.model=gpt-4o", "--set", "limits.max_cost_usd=0.0000001")
	if code != exitPartial || !stopped.QABudgetStopped {
		t.Errorf("tiny budget: exit %d, stopped %v; want %d and true", code, stopped.QABudgetStopped, exitPartial)
	}
}

// lmeData is a LongMemEval file: one question whose answer turn is marked has_answer, one
// abstention question (reported apart).
const lmeData = `[{"question_id": "q1", "question_type": "single-session-user", "question": "Where does the user work?",
  "answer": "Naver", "question_date": "2023/06/30 (Fri) 10:00",
  "haystack_session_ids": ["s_a", "answer_1"], "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/06/01 (Thu) 14:05"],
  "haystack_sessions": [[{"role": "user", "content": "I work at Kakao now."}, {"role": "assistant", "content": "Nice."}],
    [{"role": "user", "content": "Hi there."}, {"role": "user", "content": "I joined Naver on June 1.", "has_answer": true}]],
  "answer_session_ids": ["answer_1"]},
 {"question_id": "q2_abs", "question_type": "knowledge-update", "question": "Where does the user live?",
  "answer": "The information provided is not enough.", "question_date": "2023/06/30 (Fri) 10:00",
  "haystack_session_ids": ["s_b"], "haystack_dates": ["2023/05/20 (Sat) 02:21"],
  "haystack_sessions": [[{"role": "user", "content": "I like green tea."}]], "answer_session_ids": []}]`

// TestEvalLongMemEval builds a LongMemEval file with the importer's record keys and scores
// retrieval: the has_answer turn is found as evidence, the question is asked at its
// question_date, and the abstention question is reported apart.
func TestEvalLongMemEval(t *testing.T) {
	dir := t.TempDir()
	data, job := filepath.Join(dir, "lme.json"), filepath.Join(dir, "lme.yaml")
	os.WriteFile(data, []byte(lmeData), 0o644)
	os.WriteFile(job, []byte(fmt.Sprintf(`name: lme
checkpoint: %s/lme.db
timezone: Asia/Seoul
record_time: reference
sources:
  - {path: %s, format: longmemeval}
llm: {provider: offline}
embedder: {provider: offline, dimensions: 32}
`, dir, data)), 0o644)
	runQuiet(t, job)
	code, _, rep := evalJSON(t, job, "--dataset", "longmemeval", data, "--k", "3")
	if code != exitOK {
		t.Fatalf("eval: exit %d", code)
	}
	rt := rep.Retrieval
	all := rt.Categories[len(rt.Categories)-1]
	if rt.EvidenceMissing != 0 || all.Questions != 1 || all.WithEvidence != 1 || all.EvidenceHits[0] != 1 || all.AnswerHits[0] != 1 {
		t.Errorf("retrieval %+v, all %+v: want q1's has_answer turn found and retrieved", rt, all)
	}
	if len(rt.Apart) != 1 || rt.Apart[0].Category != "knowledge-update" || rt.Apart[0].Questions != 1 {
		t.Errorf("apart %+v, want the abstention question", rt.Apart)
	}
}

// TestEvalAgainst: an eval compared with its own earlier --json report changes nothing, for the
// gold scores and for retrieval; a report of another input, a file that is no eval report and a
// report with nothing in common are errors.
func TestEvalAgainst(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	gold, demo := filepath.Join(dir, "gold.db"), filepath.Join(dir, "demo.db")
	runQuiet(t, "jobs/examples/gold.yaml", "--checkpoint", gold)
	runQuiet(t, "jobs/examples/demo.yaml", "--checkpoint", demo)
	data := filepath.Join(dir, "locomo.json")
	os.WriteFile(data, []byte(qaLoCoMo), 0o644)
	job := filepath.Join(dir, "qa.yaml")
	os.WriteFile(job, []byte(fmt.Sprintf("name: qa\ncheckpoint: %s/qa.db\nrecord_time: reference\nsources:\n  - {path: %s, format: locomo}\n"+
		"llm: {provider: offline}\nembedder: {provider: offline, dimensions: 32}\n", dir, data)), 0o644)
	runQuiet(t, job)

	earlier := filepath.Join(dir, "gold.eval.json")
	mustBackfill(t, exitOK, "eval", "jobs/examples/gold.yaml", "--checkpoint", gold, "--gold", "examples/gold/gold.yaml", "--json", earlier)
	code, summary, rep := evalJSON(t, "jobs/examples/gold.yaml", "--checkpoint", gold, "--gold", "examples/gold/gold.yaml", "--against", earlier)
	if code != exitOK || rep.Against == nil || rep.Against.Gold == nil || rep.Against.Retrieval != nil {
		t.Fatalf("gold against itself: exit %d, %+v", code, rep.Against)
	}
	if g := rep.Against.Gold; g.Change != (evaluation.Scores{}) || g.BHigher+g.BLower != 0 || g.A.F1 != rep.Gold.F1 {
		t.Errorf("gold against itself: %+v", g)
	}
	if !strings.Contains(summary, "against "+earlier+": gold F1") {
		t.Errorf("summary without the comparison:\n%s", summary)
	}

	questions := filepath.Join(dir, "qa.eval.json")
	mustBackfill(t, exitOK, "eval", job, "--dataset", "locomo", data, "--json", questions)
	code, _, rep = evalJSON(t, job, "--dataset", "locomo", data, "--against", questions)
	if code != exitOK || rep.Against == nil || rep.Against.Retrieval == nil || rep.Against.Retrieval.Questions != rep.Retrieval.Categories[len(rep.Retrieval.Categories)-1].Questions {
		t.Fatalf("retrieval against itself: exit %d, %+v", code, rep.Against)
	}
	for _, r := range append(rep.Against.Retrieval.Evidence, rep.Against.Retrieval.Answer...) {
		if r.Change != 0 || r.Low != 0 || r.High != 0 {
			t.Errorf("retrieval against itself: %+v", r)
		}
	}

	notJSON := filepath.Join(dir, "not.json")
	os.WriteFile(notJSON, []byte("episodes: 3\n"), 0o644)
	// The same turns and question ids, one question asked differently: the ids alone would pair.
	reworded := filepath.Join(dir, "reworded.json")
	os.WriteFile(reworded, []byte(strings.Replace(qaLoCoMo, "Where does Ben live?", "Where did Ben live?", 1)), 0o644)
	for name, args := range map[string][]string{
		"another input":     {"jobs/examples/demo.yaml", "--checkpoint", demo, "--gold", "examples/gold/demo.yaml", "--against", earlier},
		"not a report":      {"jobs/examples/gold.yaml", "--checkpoint", gold, "--gold", "examples/gold/gold.yaml", "--against", notJSON},
		"nothing in common": {job, "--dataset", "locomo", data, "--against", earlier},
		"another question":  {job, "--dataset", "locomo", reworded, "--against", questions},
		"no such file":      {"jobs/examples/gold.yaml", "--checkpoint", gold, "--against", filepath.Join(dir, "missing.json")},
	} {
		if code, _ := backfill(t.Context(), append([]string{"eval"}, args...)...); code != exitFailed {
			t.Errorf("%s: exit %d, want %d", name, code, exitFailed)
		}
	}
}
