package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/jobs"
)

// cmdEval scores a finished graph: its health, retrieval against a benchmark's ground truth,
// extraction and temporal accuracy against a gold file, and (with a model) QA.
func cmdEval(ctx context.Context, args []string) int { return runEval(ctx, os.Stdout, args) }

func runEval(ctx context.Context, out io.Writer, args []string) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	dataset := fs.String("dataset", "", "benchmark kind, locomo or longmemeval; its FILE follows the JOB")
	gold := fs.String("gold", "", "gold file (examples/gold/) to score extraction and intervals against")
	ks := fs.String("k", "5,10,20", "the k of recall@k, comma-separated")
	minCos := fs.Float64("min-cosine", evaluation.DefaultMinCosine, "similarity floor of the cosine search (Graphiti's default)")
	qa := fs.Bool("qa", false, "answer and grade each question with the job's model (not the offline provider)")
	jsonOut := fs.String("json", "", "write the full report as JSON to FILE")
	mdOut := fs.String("markdown", "", "write the full report as Markdown to FILE")
	pos, err := parse(fs, args)
	switch {
	case err != nil:
		return usageError("eval", err)
	case *dataset == "" && len(pos) != 1, *dataset != "" && len(pos) != 2:
		return usageError("eval", errors.New("want JOB.yaml, then the dataset FILE when --dataset is given"))
	case *qa && *dataset == "":
		return usageError("eval", errors.New("--qa needs --dataset"))
	}
	kList, err := parseKs(*ks)
	if err != nil {
		return usageError("eval", err)
	}
	// Embedding the questions and answering them write the store's LLM cache: the store is then
	// opened for writing (with its write lock); health and gold scores only read it.
	g, err := openGraph(ctx, pos[0], jf, *dataset != "")
	if err != nil {
		return fail(ctx, err)
	}
	defer g.Close()
	opts := evaluation.Options{Ks: kList, MinCosine: *minCos, GoldFile: *gold}
	var clients *jobs.Clients
	if *dataset != "" {
		if g.job == nil {
			return usageError("eval", errors.New("--dataset needs a job (its embedder embeds the questions), not an export directory"))
		}
		if *qa && g.job.LLM.Provider == "offline" {
			fmt.Fprintln(os.Stderr, "backfill eval: --qa needs a model: the offline provider answers no questions; set llm.provider: openai (and llm.base_url, llm.model) in the job or with --set")
			return exitUsage
		}
		if opts.Dataset, err = readDataset(ctx, *dataset, pos[1], g.job); err != nil {
			return fail(ctx, err)
		}
		if clients, err = jobs.NewClients(g.job, g.store, nil, nil); err != nil {
			return fail(ctx, err)
		}
		opts.Embedder, opts.Concurrency = clients.Embedder, g.job.LLM.Concurrency
		if *qa {
			opts.QA = clients.LLM
		}
	}
	if *gold != "" {
		if opts.Gold, err = evaluation.ReadGold(*gold); err != nil {
			return fail(ctx, err)
		}
	}
	rep, err := evaluation.Run(ctx, g.snap, opts)
	if err != nil {
		return fail(ctx, err)
	}
	if clients != nil {
		u := clients.Usage()
		rep.LLM = &evaluation.Usage{Calls: u.Calls, CacheHits: u.CacheHits, PromptTokens: u.PromptTokens,
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD}
	}
	if err := writeEval(rep, *jsonOut, *mdOut); err != nil {
		return fail(ctx, err)
	}
	rep.Summary(out)
	if rep.QABudgetStopped {
		return exitPartial
	}
	return exitOK
}

func readDataset(ctx context.Context, kind, path string, j *jobs.Job) (*evaluation.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading dataset: %w", err)
	}
	defer f.Close()
	return evaluation.ReadDataset(ctx, kind, f, j.Location())
}

func parseKs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("--k: %q is not a positive number", f)
		}
		out = append(out, k)
	}
	return out, nil
}

// writeEval writes the JSON and Markdown reports that were asked for.
func writeEval(rep *evaluation.Report, jsonPath, mdPath string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding eval report: %w", err)
		}
		if err := os.WriteFile(jsonPath, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("writing eval report: %w", err)
		}
	}
	if mdPath != "" {
		var b bytes.Buffer
		rep.Markdown(&b)
		if err := os.WriteFile(mdPath, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("writing eval report: %w", err)
		}
	}
	return nil
}
