package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/graphdiff"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/offline"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/stages/temporal"
)

// diffJSON runs diff with --json and --markdown and returns the summary, the decoded JSON and
// the Markdown.
func diffJSON(t *testing.T, args ...string) (string, []graphdiff.GroupDiff, graphdiff.Report, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "diff.json")
	out := mustBackfill(t, exitOK, append([]string{"diff"}, append(args, "--json", path, "--markdown", path+".md")...)...)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []graphdiff.GroupDiff `json:"groups"`
		Report graphdiff.Report      `json:"report"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("diff JSON: %v\n%s", err, b)
	}
	md, err := os.ReadFile(path + ".md")
	if err != nil {
		t.Fatal(err)
	}
	return out, doc.Groups, doc.Report, string(md)
}

func runQuiet(t *testing.T, args ...string) {
	t.Helper()
	mustBackfill(t, exitOK, append([]string{"run"}, args...)...)
}

// TestDiffOfARunAgainstItselfIsEmpty: two runs of the demo, and one run against its own
// Parquet export, diff empty; the LLM usage of each run is shown.
func TestDiffOfARunAgainstItselfIsEmpty(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	a, b, export := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"), filepath.Join(dir, "export")
	runQuiet(t, "jobs/examples/demo.yaml", "--checkpoint", a)
	runQuiet(t, "jobs/examples/demo.yaml", "--checkpoint", b)
	if code, _ := backfill(t.Context(), "export", "jobs/examples/demo.yaml", "--checkpoint", b, "--format", "parquet", "--out", export); code != exitOK {
		t.Fatalf("export: exit %d", code)
	}
	for _, other := range []string{"jobs/examples/demo.yaml@" + b, export} {
		summary, groups, rep, _ := diffJSON(t, "jobs/examples/demo.yaml@"+a, other)
		if !rep.Empty() || len(groups) != 0 || !rep.Totals.Empty() || rep.Groups != 6 {
			t.Errorf("against %s: %d groups changed, totals %+v", other, rep.GroupsChanged, rep.Totals)
		}
		if !strings.Contains(summary, "no changes in 6 groups") {
			t.Errorf("summary:\n%s", summary)
		}
	}
	_, _, rep, _ := diffJSON(t, "jobs/examples/demo.yaml@"+a, "jobs/examples/demo.yaml@"+b)
	if rep.UsageA == nil || rep.UsageA.Runs != 1 || rep.UsageA.Total.Calls == 0 || rep.UsageB == nil || rep.UsageB.Total.Calls != rep.UsageA.Total.Calls {
		t.Errorf("usage A %+v, B %+v: want one run each with the same calls", rep.UsageA, rep.UsageB)
	}
	if _, _, rep, _ := diffJSON(t, "jobs/examples/demo.yaml@"+a, export, "--group", "alice"); rep.Groups != 1 {
		t.Errorf("--group alice: %d groups compared, want 1", rep.Groups)
	}
	if code, _ := backfill(t.Context(), "diff", "jobs/examples/demo.yaml@"+a, export, "--group", "alcie"); code != exitFailed {
		t.Errorf("--group in neither graph: exit %d, want 1", code)
	}
}

// marker is the line the overriding judge_fact prompt adds; the model below reads it.
const marker = "Preferences never contradict each other: a person may like many things."

// preferenceModel answers like the offline responder, except that a judge_fact prompt
// carrying marker never gets a contradiction for a PREFERS fact: a model that follows the
// changed prompt.
func preferenceModel(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req wire.ChatRequest
		json.Unmarshal(body, &req)
		if req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil && req.ResponseFormat.JSONSchema.Name == wire.TaskJudgeFact &&
			len(req.Messages) > 1 && strings.Contains(req.Messages[0].Content, marker) {
			user := req.Messages[len(req.Messages)-1].Content
			var in wire.JudgeInput
			json.Unmarshal([]byte(strings.TrimSuffix(user[strings.LastIndex(user, wire.InputFence)+len(wire.InputFence):], "\n```")), &in)
			if in.New.Predicate == "PREFERS" {
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"id": "pref", "object": "chat.completion", "model": req.Model,
					"choices": []map[string]any{{"index": 0, "finish_reason": "stop",
						"message": map[string]any{"role": "assistant", "content": `{"duplicate_ids":[],"contradictions":[]}`}}},
					"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// TestDiffShowsWhatAPromptChanged runs the demo twice through providers/stub, the second time with a
// prompts_dir overriding judge_fact. The diff lists exactly the facts that prompt changed: the
// preferences the first run closed by contradiction are open in the second, and nothing else
// about any fact differs.
func TestDiffShowsWhatAPromptChanged(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	srv := httptest.NewServer(stub.New(stub.Options{Answer: preferenceModel(offline.NewHandler(offline.Options{}))}))
	defer srv.Close()
	dir := t.TempDir()
	prompts := filepath.Join(dir, "prompts")
	os.Mkdir(prompts, 0o755)
	builtin, err := os.ReadFile("llm/wire/prompts/judge_fact.system.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(prompts, "judge_fact.system.tmpl"), append(builtin, "\n"+marker+"\n"...), 0o644)
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	runQuiet(t, demoArgs(srv.URL+"/v1", dir)...)
	os.Rename(filepath.Join(dir, "demo.db"), a)
	runQuiet(t, demoArgs(srv.URL+"/v1", dir, "llm.prompts_dir="+prompts)...)
	os.Rename(filepath.Join(dir, "demo.db"), b)

	// What the prompt should change, read from A alone: the PREFERS facts closed by a
	// contradiction (the version log's closures).
	want := closedPreferences(t, a)
	if len(want) < 2 {
		t.Fatalf("the demo closes %d preferences by contradiction, want at least 2 (green tea, 아메리카노)", len(want))
	}
	_, groups, rep, md := diffJSON(t, "jobs/examples/demo.yaml@"+a, "jobs/examples/demo.yaml@"+b)
	var got []string
	for _, gd := range groups {
		for _, f := range gd.Facts {
			if f.Kind != "changed" || !slices.Contains(f.What, "reopened") || f.ClosedBy == "" {
				t.Errorf("group %s: unexpected fact change %+v", gd.Group, f)
			}
			got = append(got, f.A.UUID)
		}
		if c := gd.Counts; c.EntitiesAdded+c.EntitiesRemoved+c.EntitiesMerged+c.EntitiesSplit+c.EntitiesRenamed != 0 {
			t.Errorf("group %s: entity changes %+v", gd.Group, c)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("facts changed %v, want exactly the closed preferences %v", got, want)
	}
	if rep.Totals.Reopened != len(want) || rep.Totals.FactsAdded+rep.Totals.FactsRemoved+rep.Totals.SentenceChanged+rep.Totals.NewlyClosed != 0 {
		t.Errorf("totals %+v", rep.Totals)
	}
	if rep.UsageB == nil || rep.UsageB.Total.Calls == 0 || rep.UsageA.Total.CostUSD <= 0 {
		t.Errorf("usage A %+v, B %+v", rep.UsageA, rep.UsageB)
	}
	// The Markdown shows each change with the episode behind it.
	if !strings.Contains(md, "fact changed: invalid_at, expired_at, reopened") || !strings.Contains(md, "my favorite drink is green tea") {
		t.Errorf("markdown without the reopened preference and its episode:\n%s", md)
	}
}

// closedPreferences lists the PREFERS facts of a store closed by a contradiction.
func closedPreferences(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	prefers := map[string]bool{}
	store.EachFact(ctx, "", func(f graph.Fact) error {
		if f.Name == "PREFERS" {
			prefers[f.UUID] = true
		}
		return nil
	})
	var out []string
	store.EachFactVersion(ctx, "", func(v graph.FactVersion) error {
		if prefers[v.FactUUID] && (v.Reason == graph.ReasonClosedByNewer || v.Reason == graph.ReasonClosedByLaterStart) {
			out = append(out, v.FactUUID)
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// sloppyJudge answers like the offline responder, except that judge_fact claims every candidate
// contradicted without a quote, as a weak model does.
func sloppyJudge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req wire.ChatRequest
		json.Unmarshal(body, &req)
		if req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil || req.ResponseFormat.JSONSchema.Name != wire.TaskJudgeFact {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			return
		}
		user := req.Messages[len(req.Messages)-1].Content
		var in wire.JudgeInput
		json.Unmarshal([]byte(strings.TrimSuffix(user[strings.LastIndex(user, wire.InputFence)+len(wire.InputFence):], "\n```")), &in)
		out := wire.JudgeOutput{Duplicates: []string{}, Contradictions: []wire.Contradiction{}}
		for _, c := range in.Candidates {
			out.Contradictions = append(out.Contradictions, wire.Contradiction{ID: c.ID})
		}
		content, _ := json.Marshal(out)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "sloppy", "object": "chat.completion", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
	})
}

// TestDiffShowsRejectedClosures builds the demo through providers/stub with the offline responder (A)
// and with a judge that claims every candidate contradicted without a quote (B). B's claims close
// nothing A leaves open; the run report counts them as rejected (no_quote) and diff shows the
// change in rejected closures between the two runs.
func TestDiffShowsRejectedClosures(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	for _, side := range []struct {
		path    string
		handler http.Handler
	}{{a, offline.NewHandler(offline.Options{})}, {b, sloppyJudge(offline.NewHandler(offline.Options{}))}} {
		srv := httptest.NewServer(stub.New(stub.Options{Answer: side.handler}))
		runQuiet(t, demoArgs(srv.URL+"/v1", dir)...)
		srv.Close()
		os.Rename(filepath.Join(dir, "demo.db"), side.path)
	}
	summary, _, rep, md := diffJSON(t, "jobs/examples/demo.yaml@"+a, "jobs/examples/demo.yaml@"+b)
	ta, tb := rep.UsageA.Temporal, rep.UsageB.Temporal
	if ta == nil || tb == nil {
		t.Fatalf("temporal counts A %+v, B %+v", ta, tb)
	}
	if ta.Rejected() != 0 || tb.ClosuresRejected[temporal.RejectNoQuote] == 0 || tb.Rejected() != tb.ClosuresRejected[temporal.RejectNoQuote] {
		t.Errorf("closures rejected A %v, B %v; want none in A, only no_quote in B", ta.ClosuresRejected, tb.ClosuresRejected)
	}
	if ta.ByCardinality == 0 || tb.ByCardinality != ta.ByCardinality || tb.JudgedApplied != 0 {
		t.Errorf("A %+v, B %+v: want the same closures by cardinality, none judged in B", ta, tb)
	}
	if rep.Totals.NewlyClosed != 0 {
		t.Errorf("%d facts newly closed in B: unquoted claims must close nothing", rep.Totals.NewlyClosed)
	}
	if !strings.Contains(summary, fmt.Sprintf("B: %d (%s %d)", tb.Rejected(), temporal.RejectNoQuote, tb.Rejected())) {
		t.Errorf("summary without B's rejected closures:\n%s", summary)
	}
	if !strings.Contains(md, fmt.Sprintf("| closures rejected: no_quote | 0 | %d | %+d |", tb.Rejected(), tb.Rejected())) {
		t.Errorf("markdown without the rejected closures:\n%s", md)
	}
}

// factlessExtraction answers like the offline responder, except that every extraction answer
// loses its facts: a model that finds the entities and no relation between them.
func factlessExtraction(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req wire.ChatRequest
		json.Unmarshal(body, &req)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil || req.ResponseFormat.JSONSchema.Name != wire.TaskExtract {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var resp map[string]any
		json.Unmarshal(rec.Body.Bytes(), &resp)
		msg := resp["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
		var answer map[string]any
		json.Unmarshal([]byte(msg["content"].(string)), &answer)
		answer["facts"] = []any{}
		content, _ := json.Marshal(answer)
		msg["content"] = string(content)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	})
}

// TestDiffComparesGoldScores builds the gold set with the offline responder (A) and through
// providers/stub with extraction answers stripped of their facts (B). diff --gold scores both: A's F1
// is eval's, B's is 0, and the change is below zero beyond the gold set's spread; A against
// itself changes nothing. A gold file that does not fit the graphs is an error.
func TestDiffComparesGoldScores(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	srv := httptest.NewServer(stub.New(stub.Options{Answer: factlessExtraction(offline.NewHandler(offline.Options{}))}))
	defer srv.Close()
	dir := t.TempDir()
	job, gold := "jobs/examples/gold.yaml", "examples/gold/gold.yaml"
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	runQuiet(t, job, "--checkpoint", a)
	runQuiet(t, job, "--checkpoint", b, "--set", "llm.provider=openai", "--set", "llm.base_url="+srv.URL+"/v1", "--set", "llm.model=gpt-4o-mini")
	_, _, ev := evalJSON(t, job, "--checkpoint", a, "--gold", gold)

	summary, _, rep, md := diffJSON(t, job+"@"+a, job+"@"+b, "--gold", gold)
	g := rep.Gold
	if g == nil {
		t.Fatal("diff --gold: no gold comparison in the JSON report")
	}
	if g.Episodes != len(ev.Gold.PerEpisode) || g.Resamples != evaluation.Resamples {
		t.Errorf("compared %d episodes in %d resamples, want %d in %d", g.Episodes, g.Resamples, len(ev.Gold.PerEpisode), evaluation.Resamples)
	}
	if g.A.F1 != ev.Gold.F1 || g.A.F1 == 0 || g.B.F1 != 0 || g.Change.F1 != -g.A.F1 {
		t.Errorf("F1 A %v (eval %v), B %v, change %v: want eval's, 0 and minus A's", g.A.F1, ev.Gold.F1, g.B.F1, g.Change.F1)
	}
	if !(g.High.F1 < 0) || g.BLower < 0.99 || !strings.Contains(g.Verdict(), "lower beyond") {
		t.Errorf("interval %v … %v, lower in %v of the draws, verdict %q", g.Low.F1, g.High.F1, g.BLower, g.Verdict())
	}
	if !strings.Contains(summary, "gold: F1 A") || !strings.Contains(md, fmt.Sprintf("Gold scores, paired over %d episodes", g.Episodes)) {
		t.Errorf("summary or markdown without the gold comparison:\n%s\n%s", summary, md)
	}

	if _, _, rep, _ := diffJSON(t, job+"@"+a, job+"@"+a, "--gold", gold); rep.Gold == nil || rep.Gold.Change != (evaluation.Scores{}) ||
		rep.Gold.Low != rep.Gold.High || rep.Gold.BHigher+rep.Gold.BLower != 0 {
		t.Errorf("A against itself: %+v", rep.Gold)
	}
	if code, _ := backfill(t.Context(), "diff", job+"@"+a, job+"@"+b, "--gold", "examples/gold/demo.yaml"); code != exitFailed {
		t.Errorf("a gold file of another job: exit %d, want %d", code, exitFailed)
	}
}
