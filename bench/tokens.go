package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// TokensResult is LoCoMo through providers/stub, and the gold set with the offline responder, under
// each lever of extraction's calls and prompt tokens, from today's two-call settings to the
// defaults, each row adding one lever to the one before; then the defaults in two-call mode.
type TokensResult struct {
	PrefixCache stub.PrefixCache `json:"prefix_cache"` // the provider prompt cache the stub imitated
	Runs        []LeverRun       `json:"runs"`
	Gate        *ReferenceGate   `json:"reference_gate,omitempty"`
}

// ReferenceGate weighs a lever not built: showing previous episodes only to a message with a
// reference to resolve (a pronoun, a demonstrative or "you"). Counted on the defaults' LoCoMo
// run: the messages asked, those with no such word, and the prompt tokens their previous
// episodes took (the JSON of the previous list, wire.EstimateTokens), which the gate would save.
type ReferenceGate struct {
	Episodes    int `json:"episodes"`
	Asked       int `json:"asked"`
	NoReference int `json:"no_reference"`
	SavedTokens int `json:"saved_tokens"`
}

// referenceRe is a word a message needs its context for: an English pronoun of the third or
// second person, or a demonstrative (LoCoMo is English).
var referenceRe = regexp.MustCompile(`(?i)\b(he|she|it|they|him|her|them|his|hers|its|their|theirs|this|that|these|those|there|here|you|your|yours|ya)\b`)

// referenceGate counts ReferenceGate on a finished run's checkpoint with the default options.
func referenceGate(ctx context.Context, checkpoint string) (*ReferenceGate, error) {
	store, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	groups, err := store.Groups(ctx)
	if err != nil {
		return nil, err
	}
	g := &ReferenceGate{}
	for _, group := range groups {
		eps, err := store.GroupEpisodes(ctx, group)
		if err != nil {
			return nil, err
		}
		plans := extract.NewGroup(eps, extract.Options{Context: 4, ContextTokens: 120})
		for i, ep := range eps {
			g.Episodes++
			p := plans.Plan(i)
			if !p.Ask {
				continue
			}
			g.Asked++
			if !referenceRe.MatchString(ep.Content) {
				g.NoReference++
				raw, _ := json.Marshal(p.Input.Previous)
				g.SavedTokens += wire.EstimateTokens(string(raw))
			}
		}
	}
	return g, nil
}

// LeverRun is one configuration: its LoCoMo run (counts of every stage, as the run's report and
// the stub counted them) and eval scores.
type LeverRun struct {
	Name     string   `json:"name"`
	Settings []string `json:"settings"` // the --set flags of the run
	Episodes int      `json:"episodes"`
	Calls    int      `json:"calls"` // chat and embeddings, every stage
	// PromptTokens of every stage; CachedPromptTokens of them reported cached by the stub
	// under PrefixCache; SharedPrefixTokens those an earlier request had sent first, whatever
	// their length (what a cache with no minimum would serve).
	PromptTokens        int            `json:"prompt_tokens"`
	CachedPromptTokens  int            `json:"cached_prompt_tokens"`
	SharedPrefixTokens  int            `json:"shared_prefix_tokens"`
	CompletionTokens    int            `json:"completion_tokens"`
	ExtractCalls        int            `json:"extract_calls"`
	ExtractPromptTokens int            `json:"extract_prompt_tokens"`
	ExtractUnits        map[string]int `json:"extract_units"` // asked, or why not
	Facts               int            `json:"facts"`
	Seconds             float64        `json:"seconds"`
	// LoCoMo is the retrieval row "all" of `backfill eval --dataset locomo`; Gold the scores of
	// the gold set (examples/gold/gold.yaml) built with the same settings, lists left out.
	LoCoMo *evaluation.Recall     `json:"locomo_all"`
	Gold   *evaluation.GoldReport `json:"gold"`
}

// lever is one row: its name and the settings that differ from the defaults.
type lever struct {
	name string
	sets []string
}

// levers lists the rows. "previous prompt" is the extract_graph prompt before issue 19
// (bench/testdata/prompts-v1), through llm.prompts_dir. The last rows are the defaults with
// extraction windows of each size (stages.extract.window, issue 43).
func levers(root string) []lever {
	unbounded := "stages.extract.context_tokens=1000000"
	ask := "stages.extract.chitchat=ask"
	v1 := "llm.prompts_dir=" + filepath.Join(root, "bench", "testdata", "prompts-v1")
	return []lever{
		{"two calls, 4 previous episodes, every message asked (today's settings)", []string{"stages.extract.mode=two_call", unbounded, ask}},
		{"one call, the previous extract_graph prompt", []string{v1, unbounded, ask}},
		{"one call, the shorter prompt", []string{unbounded, ask}},
		{"+ previous episodes within 120 tokens", []string{ask}},
		{"+ chit-chat not asked (the defaults)", nil},
		{"the defaults in two-call mode", []string{"stages.extract.mode=two_call"}},
		{"windows of 4 episodes", []string{"stages.extract.window=4"}},
		{"windows of 8 episodes", []string{"stages.extract.window=8"}},
		{"windows of 16 episodes", []string{"stages.extract.window=16"}},
	}
}

// benchTokens runs every lever.
func benchTokens(ctx context.Context, bin, root, work, dataset string) (*TokensResult, error) {
	r := &TokensResult{PrefixCache: stub.OpenAIPrefixCache}
	for i, l := range levers(root) {
		run, err := benchLever(ctx, bin, root, filepath.Join(work, fmt.Sprintf("lever-%d", i)), dataset, l, r.PrefixCache)
		if err != nil {
			return r, fmt.Errorf("%s: %w", l.name, err)
		}
		r.Runs = append(r.Runs, *run)
		if l.sets == nil { // the defaults
			if r.Gate, err = referenceGate(ctx, filepath.Join(work, fmt.Sprintf("lever-%d", i), "locomo.db")); err != nil {
				return r, err
			}
		}
	}
	return r, nil
}

// benchLever runs LoCoMo through a fresh stub with one lever's settings and scores it, then
// builds and scores the gold set with the same settings.
func benchLever(ctx context.Context, bin, root, dir, dataset string, l lever, cache stub.PrefixCache) (*LeverRun, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s, err := harness.StartStub(stub.Options{Latency: 10 * time.Millisecond, PrefixCache: cache}, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	cp, job := filepath.Join(dir, "locomo.db"), filepath.Join(dir, "locomo.yaml")
	src := fmt.Sprintf("path: %s\n    format: locomo", dataset)
	if err := os.WriteFile(job, []byte(harness.StubJobYAML("bench-levers", cp, src, s.URL, 10)), 0o644); err != nil {
		return nil, err
	}
	var sets []string
	for _, x := range l.sets {
		sets = append(sets, "--set", x)
	}
	rep, _, err := runJob(ctx, bin, job, dir, harness.Options{}, sets...)
	if err != nil {
		return nil, err
	}
	st, err := s.Stats()
	if err != nil {
		return nil, err
	}
	ex := rep.LLMByStage[extract.Stage]
	run := &LeverRun{Name: l.name, Settings: relSettings(l.sets, root), Episodes: rep.Episodes, Calls: rep.LLM.Calls, PromptTokens: rep.LLM.PromptTokens,
		CachedPromptTokens: rep.LLM.CachedPromptTokens, SharedPrefixTokens: int(st.PrefixSharedTokens),
		CompletionTokens: rep.LLM.CompletionTokens, ExtractCalls: ex.Calls, ExtractPromptTokens: ex.PromptTokens,
		ExtractUnits: rep.ExtractUnits, Facts: rep.Facts, Seconds: rep.Seconds}
	ev, err := evalJSON(ctx, bin, root, dir, job, cp, nil, append([]string{"--dataset", "locomo", dataset}, sets...))
	if err != nil {
		return nil, err
	}
	if rt := ev.Retrieval; rt != nil && len(rt.Categories) > 0 {
		all := rt.Categories[len(rt.Categories)-1]
		run.LoCoMo = &all
	}
	gold, goldCP := "jobs/examples/gold.yaml", filepath.Join(dir, "gold.db")
	res, err := harness.Run(ctx, bin, append([]string{"run", gold, "--checkpoint", goldCP}, sets...), harness.Options{Dir: root})
	if err != nil {
		return nil, err
	}
	if res.Code != 0 {
		return nil, fmt.Errorf("backfill run %s: exit %d: %s", gold, res.Code, lastLine(res.Stderr))
	}
	if ev, err = evalJSON(ctx, bin, root, dir, gold, goldCP, nil, append([]string{"--gold", "examples/gold/gold.yaml"}, sets...)); err != nil {
		return nil, err
	}
	if ev.Gold != nil {
		run.Gold = goldTotals(ev.Gold)
	}
	return run, nil
}

// evalJSON runs `backfill eval JOB --checkpoint CP ARGS… --json FILE` from the repository root,
// with env added to the environment, and reads the report (FILE in dir).
func evalJSON(ctx context.Context, bin, root, dir, job, cp string, env, args []string) (*evaluation.Report, error) {
	out := filepath.Join(dir, fmt.Sprintf("eval-%d.json", time.Now().UnixNano()))
	res, err := harness.Run(ctx, bin, append([]string{"eval", job, "--checkpoint", cp, "--json", out}, args...),
		harness.Options{Dir: root, Env: env})
	if err != nil {
		return nil, err
	}
	if res.Code != 0 {
		return nil, fmt.Errorf("backfill eval %s: exit %d: %s", job, res.Code, lastLine(res.Stderr))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("reading eval report: %w", err)
	}
	var rep evaluation.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("reading eval report: %w", err)
	}
	return &rep, nil
}

// tokensMarkdown renders the lever table.
func tokensMarkdown(w io.Writer, t *TokensResult) {
	if t == nil || len(t.Runs) == 0 {
		return
	}
	fprintf(w, "## Calls and prompt tokens per episode: the levers (LoCoMo through llm/stub, `go run ./bench -only tokens -merge`)\n\n")
	fprintf(w, "Each row is a fresh run of all 10 LoCoMo conversations through llm/stub with the settings of the row above plus one lever\n"+
		"(the rows after the defaults: the defaults in two-call mode, then with extraction windows of 4, 8 and 16 episodes,\n"+
		"stages.extract.window), then `backfill eval --dataset locomo` of that graph and the gold set\n"+
		"(jobs/examples/gold.yaml, offline responder) built and scored with the same settings. Calls and tokens count every stage,\n"+
		"chat and embeddings, as the run's report gives them (tokens are the stub's: UTF-8 bytes ÷ 4, the json_schema schema included\n"+
		"as OpenAI bills it). Cached: the prompt tokens the stub\n"+
		"reported cached under OpenAI's documented rule (prefixes of %d tokens or more, in blocks of %d); shared prefix: the\n"+
		"tokens an earlier request had sent first, in the same blocks, whatever their length (what a cache with no minimum, such as\n"+
		"vLLM's or llama.cpp's, would serve). The offline responder's answers do not measure extraction quality: these eval columns\n"+
		"show that the mechanics keep what the rules find; extraction quality needs a real model (`make eval-local` writes\n"+
		"its eval-local section at the end of this file when it has run).\n\n",
		t.PrefixCache.Min, t.PrefixCache.Block)
	beforeAfter(w, t)
	fprintf(w, "| settings | calls/episode | prompt tokens/episode | cached/episode | shared prefix/episode | extract calls | extract prompt tokens/call | not asked | facts | LoCoMo evidence R@5/10/20 | LoCoMo answer R@5/10/20 | gold P / R / F1 |\n"+
		"|---|---:|---:|---:|---:|---:|---:|---|---:|---|---|---|\n")
	for _, r := range t.Runs {
		n := float64(max(r.Episodes, 1))
		perCall := 0.0
		if r.ExtractCalls > 0 {
			perCall = float64(r.ExtractPromptTokens) / float64(r.ExtractCalls)
		}
		var not []string
		for _, k := range sortedKeys(r.ExtractUnits) {
			if k != extract.Asked {
				not = append(not, fmt.Sprintf("%s %d", k, r.ExtractUnits[k]))
			}
		}
		ev, ans, gold := "–", "–", "–"
		if l := r.LoCoMo; l != nil && len(l.EvidenceRecall) == 3 && len(l.AnswerRecall) == 3 {
			ev = fmt.Sprintf("%.3f / %.3f / %.3f", l.EvidenceRecall[0], l.EvidenceRecall[1], l.EvidenceRecall[2])
			ans = fmt.Sprintf("%.3f / %.3f / %.3f", l.AnswerRecall[0], l.AnswerRecall[1], l.AnswerRecall[2])
		}
		if g := r.Gold; g != nil {
			gold = fmt.Sprintf("%.3f / %.3f / %.3f", g.Precision, g.Recall, g.F1)
		}
		fprintf(w, "| %s | %.2f | %.0f | %.0f | %.0f | %d | %.0f | %s | %d | %s | %s | %s |\n", r.Name, float64(r.Calls)/n,
			float64(r.PromptTokens)/n, float64(r.CachedPromptTokens)/n, float64(r.SharedPrefixTokens)/n, r.ExtractCalls, perCall,
			orNone(strings.Join(not, ", ")), r.Facts, ev, ans, gold)
	}
	if g := t.Gate; g != nil && g.Episodes > 0 {
		fprintf(w, "\nNot built: previous episodes only for a message with a reference to resolve. On the defaults' run, %d of the %d\n"+
			"messages asked have no pronoun, demonstrative or \"you\"; their previous episodes took %d prompt tokens, %.1f per episode, which\n"+
			"such a gate would save (%.1f%% of the defaults' prompt tokens), at the cost of the names the context gives.\n",
			g.NoReference, g.Asked, g.SavedTokens, float64(g.SavedTokens)/float64(g.Episodes), 100*float64(g.SavedTokens)/float64(max(defaultsTokens(t), 1)))
	}
	fprintf(w, "\nSettings (`--set`) of each row:\n\n")
	for _, r := range t.Runs {
		fprintf(w, "- %s: %s\n", r.Name, orNone(strings.Join(r.Settings, " ")))
	}
	fprintf(w, "\n")
}

// Issue 19's target on LoCoMo with the defaults, over all stages; issue 43's, with windows.
const (
	targetCalls        = 1.0
	targetTokens       = 1000
	targetWindowCalls  = 0.25
	targetWindowTokens = 330
)

// beforeAfter writes the first row (today's settings) against the defaults' row: calls and
// prompt tokens per episode, against the target, and the eval scores.
func beforeAfter(w io.Writer, t *TokensResult) {
	before, after := &t.Runs[0], defaultsRun(t)
	if after == nil || after == before {
		return
	}
	per := func(r *LeverRun, n int) float64 { return float64(n) / float64(max(r.Episodes, 1)) }
	bc, ac := per(before, before.Calls), per(after, after.Calls)
	bt, at := per(before, before.PromptTokens), per(after, after.PromptTokens)
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "not met"
	}
	fprintf(w, "Before (the first row) and after (the defaults): calls/episode %.2f → %.2f (target at most %.1f: %s), prompt\n"+
		"tokens/episode %.0f → %.0f (target at most %d: %s)", bc, ac, targetCalls, met(ac <= targetCalls), bt, at, targetTokens,
		met(at <= targetTokens))
	if b, a := before.LoCoMo, after.LoCoMo; b != nil && a != nil && len(b.EvidenceRecall) == 3 && len(a.EvidenceRecall) == 3 {
		fprintf(w, ", LoCoMo evidence R@10 %.3f → %.3f", b.EvidenceRecall[1], a.EvidenceRecall[1])
	}
	if b, a := before.Gold, after.Gold; b != nil && a != nil {
		fprintf(w, ", gold F1 %.3f → %.3f", b.F1, a.F1)
	}
	fprintf(w, ".\n\n")
	windows := 0
	for i := range t.Runs {
		r := &t.Runs[i]
		if !strings.HasPrefix(r.Name, "windows of") {
			continue
		}
		windows++
		rc, rt := per(r, r.Calls), per(r, r.PromptTokens)
		fprintf(w, "The defaults with %s (issue 43's targets, at most %.2f calls and %d prompt tokens per episode): calls/episode %.2f → %.2f (%s), "+
			"prompt tokens/episode %.0f → %.0f (%s), completion tokens/episode %.1f → %.1f", strings.TrimPrefix(r.Name, "the defaults with "),
			targetWindowCalls, targetWindowTokens, ac, rc, met(rc <= targetWindowCalls), at, rt, met(rt <= targetWindowTokens),
			per(after, after.CompletionTokens), per(r, r.CompletionTokens))
		if a, b := after.LoCoMo, r.LoCoMo; a != nil && b != nil && len(a.EvidenceRecall) == 3 && len(b.EvidenceRecall) == 3 {
			fprintf(w, ", LoCoMo evidence R@10 %.3f → %.3f", a.EvidenceRecall[1], b.EvidenceRecall[1])
		}
		if a, b := after.Gold, r.Gold; a != nil && b != nil {
			fprintf(w, ", gold F1 %.3f → %.3f", a.F1, b.F1)
		}
		fprintf(w, ".\n")
	}
	if windows > 0 {
		fprintf(w, "\n")
	}
}

// relSettings are the settings as results.md shows them: paths inside the repository relative
// to its root.
func relSettings(sets []string, root string) []string {
	var out []string
	for _, x := range sets {
		out = append(out, strings.ReplaceAll(x, root+string(filepath.Separator), ""))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// defaultsRun is the defaults' run (the row without settings), or nil.
func defaultsRun(t *TokensResult) *LeverRun {
	for i := range t.Runs {
		if len(t.Runs[i].Settings) == 0 {
			return &t.Runs[i]
		}
	}
	return nil
}

// defaultsTokens is the prompt tokens of the defaults' run, or 0.
func defaultsTokens(t *TokensResult) int {
	if r := defaultsRun(t); r != nil {
		return r.PromptTokens
	}
	return 0
}
