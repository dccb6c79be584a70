package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/jobs/pipeline"
)

// evalOptions are the flags of eval.
type evalOptions struct {
	jobFlags
	boltFlags
	dataset, gold, ks, json, markdown, against string
	html                                       string
	groups                                     []string
	minCosine                                  float64
	qa                                         bool
}

func newEvalCmd(c *cli) *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval GRAPH [DATASET_FILE]",
		Short: "Score a finished graph: health, retrieval, gold facts, QA",
		Long: `Eval scores a finished graph and prints a short summary (--json, --markdown: the full report).
GRAPH is a job file with its checkpoint (the job's, --checkpoint's, or JOB.yaml@CHECKPOINT), a
Parquet export directory, or a graph that Graphiti or backfill wrote into a database, read-only:
Neo4j or Memgraph by a Bolt URI (bolt://HOST:PORT, neo4j://HOST:PORT; --database), FalkorDB by
a redis:// or rediss:// URI (a graph per group), credentials in BACKFILL_GRAPH_USER and
BACKFILL_GRAPH_PASSWORD. JOB.yaml@EXPORT_DIR and JOB.yaml@URI read those with the job, whose
embedder embeds the questions of --dataset. A graph backfill loaded (since loader load-v4)
scores as its checkpoint and export do. It is read one group at a time; --group reads only the
groups named; the report names the kind of graph read.

Always: graph health per group and in total (entities and facts per episode, share of facts with
a valid_at, share closed, colliding normalised names, entities without facts, community sizes,
closures by a fact that shares no endpoint with the closed one).

--dataset locomo|longmemeval with the dataset FILE after GRAPH: retrieval against the benchmark's
ground truth without an LLM, evidence (turn and session) and answer recall@k by category, in
three modes computed the same way on the same questions: the graph's facts (Graphiti's hybrid
search: BM25 and cosine similarity fused by reciprocal rank), the facts and the episodes (BM25
over the episodes' text beside them, as Graphiti's combined search), and no graph (BM25 over the
raw episodes alone). Question embeddings and --qa answers go to the checkpoint's LLM cache, so
this opens the store for writing.

--gold FILE: fact precision, recall and F1, interval accuracy, facts wrongly closed, closures
missed and at the wrong time, each score with its 95% bootstrap interval over the episodes.
--qa (needs --dataset and a model, not the offline provider: exit 2) answers each question from
its top facts and grades the answer with an LLM judge; a budget stop exits 3. The same graph
always gives the same scores.

--html FILE writes a self-contained page (inline SVG, no script) with charts: recall@k by mode
and category with 95% intervals, the gold precision, recall, F1 and interval columns with theirs,
and, with --against, the paired changes.

--against FILE compares this eval with an earlier one's --json report of the same input (A: that
report, B: this graph): the gold scores episode by episode and the recalls question by question,
each change with its 95% paired-bootstrap interval. Reports of other episodes or questions are
an error.`,
		Example: `  backfill eval jobs/examples/demo.yaml --gold examples/gold/demo.yaml --markdown eval.md
  backfill eval jobs/examples/locomo.yaml --dataset locomo locomo10.json --k 5,10
  backfill eval .backfill/demo/export
  backfill eval jobs/examples/gold.yaml@bolt://127.0.0.1:7687 --gold examples/gold/gold.yaml
  backfill eval redis://127.0.0.1:6379 --gold examples/gold/demo.yaml
  backfill eval jobs/examples/locomo.yaml@v2.db --dataset locomo locomo10.json --against v1.eval.json`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case o.dataset == "" && len(args) != 1:
				return fmt.Errorf("want one GRAPH (and the dataset FILE only with --dataset), got %d argument(s)", len(args))
			case o.dataset != "" && len(args) != 2:
				return fmt.Errorf("want GRAPH, then the dataset FILE of --dataset, got %d argument(s)", len(args))
			case o.qa && o.dataset == "":
				return errors.New("--qa needs --dataset")
			}
			return nil
		},
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args))
		},
	}
	o.jobFlags.register(cmd)
	o.boltFlags.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.groups, "group", nil, "only this `GROUP` (its id as stored; repeatable); the gold file's and the dataset's other groups are left out")
	f.StringVar(&o.dataset, "dataset", "", "benchmark `KIND`, locomo or longmemeval; its FILE follows GRAPH")
	f.StringVar(&o.gold, "gold", "", "gold `FILE` (examples/gold/) to score extraction and intervals against")
	f.StringVar(&o.ks, "k", "5,10,20", fmt.Sprintf("the `K`s of recall@k, comma-separated, each 1 to %d", evaluation.MaxK))
	f.Float64Var(&o.minCosine, "min-cosine", evaluation.DefaultMinCosine, "similarity floor `F` of the cosine search, -1 to 1 (Graphiti's default)")
	f.BoolVar(&o.qa, "qa", false, "answer and grade each question with the job's model (not the offline provider)")
	f.StringVar(&o.json, "json", "", "write the full report as JSON to `FILE`")
	f.StringVar(&o.markdown, "markdown", "", "write the full report as Markdown to `FILE`")
	f.StringVar(&o.html, "html", "", "write a self-contained page with charts of the scores and their intervals to `FILE`")
	f.StringVar(&o.against, "against", "", "compare the gold scores and retrieval, episode by episode and question by question, with an earlier eval's --json `FILE` of the same input")
	_ = cmd.RegisterFlagCompletionFunc("dataset", fixedCompletion("locomo", "longmemeval"))
	_ = cmd.MarkFlagFilename("gold", "yaml")
	return cmd
}

// run scores the graph of pos[0] (with the dataset file pos[1] of --dataset).
func (o *evalOptions) run(ctx context.Context, out io.Writer, pos []string) int {
	kList, err := parseKs(o.ks)
	if err != nil {
		return usageError("eval", err)
	}
	if err := evaluation.CheckMinCosine(o.minCosine); err != nil {
		return usageError("eval", fmt.Errorf("--min-cosine: %w", err))
	}
	var earlier *evaluation.Report
	if o.against != "" {
		if earlier, err = readReport(o.against); err != nil {
			return fail(ctx, err)
		}
	}
	// Embedding the questions and answering them write the store's LLM cache: the store is then
	// opened for writing (with its write lock); health and gold scores only read it.
	g, err := openGraph(ctx, pos[0], o.jobFlags, o.boltFlags, o.dataset != "")
	if err != nil {
		return fail(ctx, err)
	}
	defer g.Close()
	opts := evaluation.Options{Ks: kList, MinCosine: o.minCosine, GoldFile: o.gold, Groups: o.groups}
	var clients *pipeline.Clients
	if o.dataset != "" {
		if g.job == nil {
			return usageError("eval", errors.New("--dataset needs a job (its embedder embeds the questions): JOB.yaml, JOB.yaml@CHECKPOINT, JOB.yaml@EXPORT_DIR or JOB.yaml@URI (bolt://…, redis://…), not a bare export directory or graph URI"))
		}
		if o.qa && g.job.LLM.Provider == "offline" {
			fmt.Fprintln(os.Stderr, "backfill eval: --qa needs a model: the offline provider answers no questions; set llm.provider: openai (and llm.base_url, llm.model) in the job or with --set")
			return exitUsage
		}
		if opts.Dataset, err = readDataset(ctx, o.dataset, pos[1], g.job); err != nil {
			return fail(ctx, err)
		}
		if clients, err = pipeline.NewClients(g.job, g.store, nil, slog.Default(), nil); err != nil {
			return fail(ctx, err)
		}
		opts.Embedder, opts.Concurrency = clients.Embedder, g.job.LLM.Concurrency
		if o.qa {
			opts.QA = clients.LLM
		}
	}
	if o.gold != "" {
		if opts.Gold, err = evaluation.ReadGold(o.gold); err != nil {
			return fail(ctx, err)
		}
	}
	rep, err := evaluation.Run(ctx, g.snap, opts)
	if err != nil {
		return fail(ctx, err)
	}
	if earlier != nil {
		if rep.Against, err = evaluation.Compare(o.against, earlier, rep); err != nil {
			return fail(ctx, err)
		}
	}
	if clients != nil {
		u := pipeline.UsageReport(clients.Usage().Total, nil)
		rep.LLM = &evaluation.Usage{Calls: u.Calls, CacheHits: u.CacheHits, PromptTokens: u.PromptTokens,
			CompletionTokens: u.CompletionTokens, CostUSD: u.CostUSD}
	}
	if err := writeEval(rep, o.json, o.markdown); err != nil {
		return fail(ctx, err)
	}
	if o.html != "" {
		page := evaluation.HTMLPage{Title: "backfill eval: " + rep.Graph, Reports: []evaluation.NamedReport{{Name: "this graph", Report: rep}}}
		if c := rep.Against; c != nil {
			page.Gold, page.Retrieval = c.Gold, c.Retrieval
			page.Facts = append(page.Facts, [2]string{"paired changes", "A: " + c.File + ", B: this graph"})
		}
		if err := writeHTML(o.html, page); err != nil {
			return fail(ctx, err)
		}
	}
	g.recordReports("eval", o.json, o.markdown, o.html)
	rep.Summary(out)
	if rep.QABudgetStopped {
		return exitPartial
	}
	return exitOK
}

// readReport reads an eval --json report.
func readReport(path string) (*evaluation.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading --against: %w", err)
	}
	var r evaluation.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading --against %s: not an eval --json report: %w", path, err)
	}
	return &r, nil
}

func readDataset(ctx context.Context, kind, path string, j *pipeline.Job) (*evaluation.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading dataset: %w", err)
	}
	defer f.Close()
	d, err := evaluation.ReadDataset(ctx, kind, f, j.Location())
	if err != nil {
		return nil, fmt.Errorf("reading dataset %s: %w", path, err)
	}
	return d, nil
}

func parseKs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 || k > evaluation.MaxK {
			return nil, fmt.Errorf("--k: %q is not a number from 1 to %d", f, evaluation.MaxK)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	if len(out) > evaluation.MaxKs {
		return nil, fmt.Errorf("--k: %d values, at most %d", len(out), evaluation.MaxKs)
	}
	return out, nil
}

// writeHTML writes an evaluation page to path.
func writeHTML(path string, page evaluation.HTMLPage) error {
	var b bytes.Buffer
	if err := evaluation.WriteHTML(&b, page); err != nil {
		return err
	}
	if err := safefile.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("writing the HTML page: %w", err)
	}
	return nil
}

// writeEval writes the JSON and Markdown reports that were asked for.
func writeEval(rep *evaluation.Report, jsonPath, mdPath string) error {
	if jsonPath != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return fmt.Errorf("encoding eval report: %w", err)
		}
		if err := safefile.WriteFile(jsonPath, append(b, '\n')); err != nil {
			return fmt.Errorf("writing eval report: %w", err)
		}
	}
	if mdPath != "" {
		var b bytes.Buffer
		rep.Markdown(&b)
		if err := safefile.WriteFile(mdPath, b.Bytes()); err != nil {
			return fmt.Errorf("writing eval report: %w", err)
		}
	}
	return nil
}
