package evaluation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/snapshots"
)

// DefaultKs are the k of recall@k when Options.Ks is empty.
var DefaultKs = []int{5, 10, 20}

// Bounds of the options: a k of recall@k is 1 to MaxK, and there are at most MaxKs of them.
const (
	MaxK  = 10000
	MaxKs = 16
)

// CheckMinCosine reports a similarity floor that is not a number from -1 to 1.
func CheckMinCosine(f float64) error {
	if math.IsNaN(f) || f < -1 || f > 1 {
		return fmt.Errorf("%v is not a cosine similarity (a number from -1 to 1)", f)
	}
	return nil
}

// Options say what Run measures besides the graph's health.
type Options struct {
	Dataset   *Dataset // retrieval against its ground truth; nil: none
	Embedder  Embedder // embeds the questions (required with Dataset)
	Ks        []int    // DefaultKs when empty
	MinCosine float64  // similarity floor of the cosine search (DefaultMinCosine is Graphiti's)
	Gold      *Gold    // extraction and temporal accuracy; nil: none
	GoldFile  string   // the gold file's path, for the report
	// Groups, when set, are the only groups read; the gold file's and the dataset's other
	// groups are left out.
	Groups []string
	// QA, when set, answers and grades each question from its retrieved facts (needs Dataset),
	// Concurrency questions at a time.
	QA          Asker
	Concurrency int
	Log         *slog.Logger
}

// Report is everything Run measured. The same graph and options give the same report.
type Report struct {
	Graph         string           `json:"graph"`
	Kind          string           `json:"kind"` // what Graph is: snapshots.KindCheckpoint, KindExport, KindNeo4j, …
	Health        Health           `json:"health"`
	HealthByGroup []Health         `json:"health_by_group"`
	Retrieval     *RetrievalReport `json:"retrieval,omitempty"`
	Gold          *GoldReport      `json:"gold,omitempty"`
	QA            *QAReport        `json:"qa,omitempty"`
	// QABudgetStopped is set when limits.max_cost_usd stopped the QA calls: QA then covers the
	// questions answered before the stop.
	QABudgetStopped bool `json:"qa_budget_stopped,omitempty"`
	// LLM is the eval's own usage (question embeddings, QA calls), filled in by the caller.
	LLM *Usage `json:"llm,omitempty"`
	// Against compares this report with an earlier one of the same input (Compare), filled in
	// by the caller.
	Against *Comparison `json:"against,omitempty"`
}

// Usage is the calls, tokens and cost an eval spent.
type Usage struct {
	Calls            int     `json:"calls"`
	CacheHits        int     `json:"cache_hits"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CostUSD          float64 `json:"cost_usd"`
}

// Run reads the snapshot group by group (one group in memory at a time) and measures it.
func Run(ctx context.Context, snap snapshots.Snapshot, o Options) (*Report, error) {
	if len(o.Ks) == 0 {
		o.Ks = DefaultKs
	}
	o.Ks = slices.Clone(o.Ks)
	slices.Sort(o.Ks)
	o.Ks = slices.Compact(o.Ks)
	if o.Ks[0] < 1 || o.Ks[len(o.Ks)-1] > MaxK || len(o.Ks) > MaxKs {
		return nil, fmt.Errorf("evaluating: want at most %d ks, each from 1 to %d, got %v", MaxKs, MaxK, o.Ks)
	}
	if err := CheckMinCosine(o.MinCosine); err != nil {
		return nil, fmt.Errorf("evaluating: min cosine: %w", err)
	}
	if o.Dataset != nil && o.Embedder == nil {
		return nil, errors.New("evaluating: a dataset needs an embedder for the questions")
	}
	if o.QA != nil && o.Dataset == nil {
		return nil, errors.New("evaluating: QA needs a dataset")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	rep := &Report{Graph: snap.Describe(), Kind: snap.Kind(), Health: Health{CommunitySizes: map[int]int{}}}
	if snap.HasVersions() {
		zero1, zero2 := 0, 0
		rep.Health.ClosedByStranger, rep.Health.ClosuresUnattributed = &zero1, &zero2
	}
	var table *recallTable
	var qa qaTable
	if o.Dataset != nil {
		table = newRecallTable(o.Dataset.Categories, len(o.Ks))
	}
	var want func(string) bool
	if len(o.Groups) > 0 {
		want = func(id string) bool { return slices.Contains(o.Groups, id) }
	}
	goldGroups := map[string]bool{}
	if o.Gold != nil {
		rep.Gold = &GoldReport{File: o.GoldFile}
		for g := range o.Gold.Groups() {
			if want == nil || want(g) {
				goldGroups[g] = true
			}
		}
	}
	seen := map[string]bool{}
	var goldErrs []error
	for g, err := range snap.Groups(ctx, want) {
		if err != nil {
			return nil, err
		}
		seen[g.ID] = true
		h := groupHealth(g, snap.HasVersions())
		rep.Health.add(h)
		rep.HealthByGroup = append(rep.HealthByGroup, h)
		if qs := questionsOf(o.Dataset, g.ID); len(qs) > 0 {
			rs, missing, err := retrieveGroup(ctx, g, o.Dataset, qs, o.Embedder, o.Ks, o.MinCosine)
			if err != nil {
				return nil, err
			}
			table.evMissing += missing
			for _, r := range rs {
				table.add(r)
			}
			if o.QA != nil && !rep.QABudgetStopped {
				if err := answer(ctx, o, rs, &qa); errors.Is(err, pacing.ErrBudgetExceeded) {
					rep.QABudgetStopped = true
					o.Log.Warn("budget reached: QA stopped; the QA scores cover the questions answered before", "group", g.ID)
				} else if err != nil {
					return nil, err
				}
			}
		}
		if goldGroups[g.ID] {
			at, errs := o.Gold.checkEpisodes(g)
			goldErrs = append(goldErrs, errs...)
			o.Gold.scoreGroup(g, at, rep.Gold)
		}
	}
	rep.Health.finish()
	if o.Dataset != nil {
		rep.Retrieval = &RetrievalReport{Dataset: o.Dataset.Name, Ks: o.Ks, MinCosine: o.MinCosine, Unreadable: o.Dataset.Unreadable}
		for group, qs := range o.Dataset.Questions {
			if !seen[group] && (want == nil || want(group)) {
				rep.Retrieval.GroupMissing += len(qs)
			}
		}
		table.report(rep.Retrieval)
		if o.QA != nil {
			rep.QA = qa.report(o.Ks[len(o.Ks)-1], o.Dataset.Categories)
		}
	}
	if o.Gold != nil {
		for _, group := range slices.Sorted(maps.Keys(goldGroups)) {
			if !seen[group] {
				goldErrs = append(goldErrs, fmt.Errorf("gold group %s is not in the graph", group))
			}
		}
		if len(goldErrs) > 0 {
			return nil, fmt.Errorf("evaluating %s against %s: the gold file does not fit the graph: %w", rep.Graph, o.GoldFile, errors.Join(goldErrs...))
		}
		rep.Gold.finish()
	}
	return rep, nil
}

func questionsOf(d *Dataset, group string) []Question {
	if d == nil {
		return nil
	}
	return d.Questions[group]
}

// answer runs QA over one group's results and adds the verdicts to the table.
func answer(ctx context.Context, o Options, rs []questionResult, t *qaTable) error {
	asked, correct, err := answerGroup(ctx, o.QA, rs, o.Concurrency)
	if err != nil {
		return err
	}
	for i, r := range rs {
		if asked[i] {
			t.add(r.q.Category, correct[i])
		}
	}
	return nil
}
