package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/tests/harness"
)

// EvalResult is `backfill eval` of graphs built with the offline responder: retrieval on
// LoCoMo against its ground truth and the scores against the hand-written gold files. A
// baseline for the mechanics of eval, not a measure of extraction quality.
type EvalResult struct {
	Commands     []string                    `json:"commands"`
	LoCoMo       *evaluation.RetrievalReport `json:"locomo_retrieval,omitempty"`
	LoCoMoHealth *evaluation.Health          `json:"locomo_health,omitempty"`
	Gold         []GoldScore                 `json:"gold,omitempty"`
}

// GoldScore is one gold file's scores (the lists of misses and extras left out).
type GoldScore struct {
	Job    string                 `json:"job"`
	Report *evaluation.GoldReport `json:"report"`
}

// benchEval builds LoCoMo, the gold set and the demo with the offline responder (jobs run from
// the repository root, as a user would) and evaluates each.
func benchEval(ctx context.Context, bin, root, work, dataset string) (*EvalResult, error) {
	r := &EvalResult{}
	build := func(job, checkpoint string, env ...string) error {
		r.Commands = append(r.Commands, fmt.Sprintf("backfill run %s --checkpoint %s", job, filepath.Base(checkpoint)))
		res, err := harness.Run(ctx, bin, []string{"run", job, "--checkpoint", checkpoint}, harness.Options{Dir: root, Env: env})
		if err != nil {
			return err
		}
		if res.Code != 0 {
			return fmt.Errorf("backfill run %s: exit %d: %s", job, res.Code, lastLine(res.Stderr))
		}
		return nil
	}
	eval := func(job, checkpoint string, env []string, args ...string) (*evaluation.Report, error) {
		shown := strings.ReplaceAll(strings.Join(args, " "), dataset, "$LOCOMO")
		r.Commands = append(r.Commands, fmt.Sprintf("backfill eval %s --checkpoint %s %s", job, filepath.Base(checkpoint), shown))
		return evalJSON(ctx, bin, root, work, job, checkpoint, env, args)
	}
	env := []string{"LOCOMO=" + dataset}
	ck := filepath.Join(work, "locomo-offline.db")
	if err := build("jobs/examples/locomo.yaml", ck, env...); err != nil {
		return nil, err
	}
	rep, err := eval("jobs/examples/locomo.yaml", ck, env, "--dataset", "locomo", dataset)
	if err != nil {
		return nil, err
	}
	r.LoCoMo, r.LoCoMoHealth = rep.Retrieval, &rep.Health
	r.LoCoMoHealth.Collisions, r.LoCoMo.PerQuestion = nil, nil // the totals and intervals are what the results keep
	for _, name := range []string{"gold", "demo"} {
		job := "jobs/examples/" + name + ".yaml"
		ck := filepath.Join(work, name+".db")
		if err := build(job, ck); err != nil {
			return nil, err
		}
		rep, err := eval(job, ck, nil, "--gold", "examples/gold/"+name+".yaml")
		if err != nil {
			return nil, err
		}
		r.Gold = append(r.Gold, GoldScore{Job: job, Report: goldTotals(rep.Gold)})
	}
	return r, nil
}

// goldTotals drops the lists of a gold report (misses, extras, wrong intervals, per group and
// per episode) and returns it: the totals and intervals are what the results keep.
func goldTotals(g *evaluation.GoldReport) *evaluation.GoldReport {
	g.Misses, g.Extras, g.WrongIntervals, g.PerGroup, g.PerEpisode = nil, nil, nil, nil, nil
	return g
}

// evalMarkdown renders the eval baselines.
func evalMarkdown(w io.Writer, e *EvalResult) {
	fprintf(w, "## Eval baselines (offline responder)\n\nGraphs built with the offline responder, scored by `backfill eval`. A baseline for the mechanics\n"+
		"(retrieval, matching, intervals, closures), not a measure of extraction quality: the responder is a small set\nof rules. Reproduce from the repository root, with LOCOMO naming locomo10.json (the LoCoMo job reads it):\n\n```\n")
	for _, c := range e.Commands {
		fprintf(w, "%s\n", c)
	}
	fprintf(w, "```\n\n")
	if h := e.LoCoMoHealth; h != nil {
		fprintf(w, "LoCoMo graph: %d episodes, %d entities, %d facts (%.2f per episode), valid_at known %.1f%%, closed %.1f%%, name collisions %d, entities without facts %d.\n\n",
			h.Episodes, h.Entities, h.Facts, h.FactsPerEpisode, 100*h.ValidAtShare, 100*h.ClosedShare, h.NameCollisions, h.EntitiesWithoutFacts)
	}
	if e.LoCoMo != nil {
		var b strings.Builder
		e.LoCoMo.Markdown(&b)
		fprintf(w, "%s", strings.Replace(b.String(), "## Retrieval against locomo ground truth", "### LoCoMo retrieval (recall@k by category)", 1))
	}
	if len(e.Gold) > 0 {
		fprintf(w, "### Gold files (examples/gold/)\n\n| job | gold facts | graph facts | matched | duplicates | precision | recall | F1 | valid_at right | invalid_at right | both right | wrongly closed | closures missed | closed at the wrong time |\n"+
			"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, g := range e.Gold {
			r := g.Report
			fprintf(w, "| %s | %d | %d | %d | %d | %.3f | %.3f | %.3f | %d/%d | %d/%d | %d/%d | %d/%d | %d/%d | %d |\n", g.Job, r.GoldFacts,
				r.GraphFacts, r.Matched, r.Duplicates, r.Precision, r.Recall, r.F1, r.ValidAtCorrect, r.Matched, r.InvalidAtCorrect,
				r.Matched, r.IntervalCorrect, r.Matched, r.WronglyClosed, r.MatchedOpen, r.ClosuresMissed, r.MatchedClosed, r.ClosedWrongTime)
		}
		fprintf(w, "\n")
	}
}
