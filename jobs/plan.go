package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/stages/ingest"
)

// DefaultPlanSample is how many extraction prompts a plan renders at most.
const DefaultPlanSample = 2000

// PlanOptions are the per-invocation settings of a plan.
type PlanOptions struct {
	Checkpoint string       // the job's store (default: the job's checkpoint); read only if it exists
	Shard      Shard        // plan one shard's groups
	Sample     int          // extraction prompts rendered at most (DefaultPlanSample)
	Log        *slog.Logger // default: slog.Default()
	FS         loaders.FS   // where sources are read (default: the local file system)
}

// Plan is a dry run of a job: what it would read and an estimate of what it would ask the
// LLM. Episodes and groups are exact (the sources are ingested into a temporary store).
// Extraction calls are exact and their prompt tokens are estimated from the real rendered
// prompts; a call the job's checkpoint store already answers is counted as cached and free.
// The calls of later stages depend on what extraction finds and are estimates from the ratios
// in Assumptions. Every token count is an estimate (wire.EstimateTokens).
type Plan struct {
	Job            string        `json:"job"`
	Episodes       int           `json:"episodes"`
	Groups         int           `json:"groups"`
	Quarantined    int           `json:"quarantined"`
	Model          string        `json:"model"`
	Mode           string        `json:"mode"`           // llm.mode: which of the two costs the job pays
	EmbeddingMode  string        `json:"embedding_mode"` // embedder.mode
	Price          *pacing.Price `json:"price"`          // nil: the model has no price; cost is then 0
	EmbeddingModel string        `json:"embedding_model"`
	EmbeddingPrice *pacing.Price `json:"embedding_price"`
	Stages         []StagePlan   `json:"stages"`
	Total          StagePlan     `json:"total"`
	Assumptions    Ratios        `json:"assumptions"`
	Notes          []string      `json:"notes"`
	// Records is what the JSON records hold (absent when there are none); SkipLLM counts the
	// records whose extraction asks the LLM nothing.
	Records *ingest.Records `json:"records,omitempty"`
}

// StagePlan is the estimate of one stage.
type StagePlan struct {
	Stage            string  `json:"stage"`
	Units            int     `json:"units"`        // exact
	Calls            int     `json:"calls"`        // requests to send (excluding retries)
	CachedCalls      int     `json:"cached_calls"` // calls the cache already answers (extract only)
	CallsExact       bool    `json:"calls_exact"`
	PromptTokens     int     `json:"prompt_tokens"`     // estimate
	CompletionTokens int     `json:"completion_tokens"` // estimate (wire.ExpectedCompletion per call)
	CostUSD          float64 `json:"cost_usd"`          // estimate, online prices
	BatchCostUSD     float64 `json:"batch_cost_usd"`    // estimate, batch prices (llm.mode: batch)
	Basis            string  `json:"basis"`
}

// MakePlan plans j without calling the LLM: it ingests the sources into a temporary store,
// renders extraction prompts and estimates the rest.
func MakePlan(ctx context.Context, j *Job, opts PlanOptions) (*Plan, error) {
	if opts.Checkpoint == "" {
		opts.Checkpoint = j.Checkpoint
	}
	if opts.Sample < 1 {
		opts.Sample = DefaultPlanSample
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.FS == nil {
		opts.FS = SourceFS(j)
	}
	dir, err := os.MkdirTemp("", "backfill-plan-")
	if err != nil {
		return nil, fmt.Errorf("creating plan store: %w", err)
	}
	defer os.RemoveAll(dir)
	tmp, err := checkpoints.Open(ctx, filepath.Join(dir, "plan.db"))
	if err != nil {
		return nil, err
	}
	defer tmp.Close()
	io, err := j.ingestOptions(opts.FS, opts.Shard)
	if err != nil {
		return nil, err
	}
	_, ingested, err := ingest.Run(ctx, stages.Env{Store: tmp, Clock: graph.SystemClock{}, Progress: stages.NoProgress{}, Log: opts.Log}, io)
	if err != nil {
		return nil, err
	}
	recs := &ingested.Records
	p := &Plan{Job: j.Name, Model: j.LLM.Model, Mode: j.LLM.Mode, EmbeddingModel: j.Embedder.Model, EmbeddingMode: j.Embedder.Mode,
		Assumptions: DefaultRatios()}
	if recs.Records > 0 {
		p.Records = recs
	}
	prices := j.prices()
	if pr, ok := prices.Lookup(j.LLM.Model); ok {
		p.Price = &pr
		if pr.InputPerMTok > 0 && pr.BatchInputPerMTok == 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("model %q has no batch price: batch costs use its online price (add llm.prices.%s.batch_input_per_mtok and batch_output_per_mtok)",
				j.LLM.Model, j.LLM.Model))
		}
	} else {
		p.Notes = append(p.Notes, fmt.Sprintf("model %q has no price: costs are 0 (add llm.prices.%s)", j.LLM.Model, j.LLM.Model))
	}
	if pr, ok := prices.Lookup(j.Embedder.Model); ok {
		p.EmbeddingPrice = &pr
	}
	var cache llm.Cache
	var prev *checkpoints.Store // the job's store, for the extractions it already holds
	if j.LLM.Cache != "off" {
		old, err := OpenCheckpoint(ctx, j, opts.Checkpoint, CheckpointOptions{Log: opts.Log})
		switch {
		case errors.Is(err, fs.ErrNotExist): // the job has not run
		case errors.Is(err, checkpoints.ErrSchemaVersion): // plan never writes it, so never upgrades it
			p.Notes = append(p.Notes, fmt.Sprintf("checkpoint %s is of another schema version: its cache and graph are not used", opts.Checkpoint))
		case err != nil:
			return nil, err
		default:
			defer old.Close()
			cache, prev = old, old
			if c, err := old.Count(ctx); err == nil {
				if r, ok := RatiosFrom(c); ok {
					p.Assumptions = r
				}
			}
		}
	}
	prompts, err := wire.LoadPrompts(j.LLM.PromptsDir)
	if err != nil {
		return nil, err
	}
	client := llm.NewClient(llm.Options{Model: j.LLM.Model, Temperature: j.LLM.Temperature, Prices: prices,
		ResponseFormat: j.LLM.ResponseFormat, MaxTokens: j.LLM.MaxTokens}, nil, prompts, cache)
	sizes, err := p.planExtract(ctx, j, tmp, prev, client, opts.Sample)
	if err != nil {
		return nil, err
	}
	if err := p.planLater(ctx, j, client, sizes); err != nil {
		return nil, err
	}
	p.total()
	return p, nil
}

// planExtract counts episodes and groups, renders the extraction prompt of every stride-th
// episode and scales the sample to all episodes. It returns the episodes per group. prev, when
// not nil, is the job's store: its extractions make the facts calls of two-call mode exact.
func (p *Plan) planExtract(ctx context.Context, j *Job, store, prev *checkpoints.Store, c *llm.Client, sample int) ([]int, error) {
	counts, err := store.Count(ctx)
	if err != nil {
		return nil, err
	}
	p.Episodes, p.Quarantined = counts.Episodes, counts.Quarantined
	groups, err := store.Groups(ctx)
	if err != nil {
		return nil, err
	}
	p.Groups = len(groups)
	stride := max(1, (p.Episodes+sample-1)/sample)
	opts := j.extractOptions()
	tasks := extract.Tasks(j.Stages.Extract.Mode)
	var sizes []int
	k, sampled, calls, cached, prompt, guessed := 0, 0, 0, 0, 0, 0
	skipped := map[string]int{} // sampled episodes not asked, by extract.Plan.Skip
	for _, g := range groups {
		eps, err := store.GroupEpisodes(ctx, g)
		if err != nil {
			return nil, err
		}
		outs := map[string][]byte{}
		if prev != nil && len(tasks) == 2 {
			if outs, err = prev.GroupOutputs(ctx, extract.Stage, g); err != nil {
				return nil, err
			}
		}
		sizes = append(sizes, len(eps))
		group := extract.NewGroup(eps, opts)
		for i := range eps {
			if k++; (k-1)%stride != 0 {
				continue
			}
			sampled++
			plan := group.Plan(i)
			if !plan.Ask {
				skipped[plan.Skip]++
				continue
			}
			in := plan.Input
			e, err := c.Estimate(ctx, tasks[0], in)
			if err != nil {
				return nil, fmt.Errorf("planning extraction of %s: %w", eps[i].UUID, err)
			}
			ests := []llm.CallEstimate{e}
			if len(tasks) == 2 { // the facts call: known from a stored extraction, else priced like the first
				var out extract.Output
				if raw, ok := outs[eps[i].UUID]; ok && json.Unmarshal(raw, &out) == nil {
					if fin, ok := extract.FactsInput(in, out.Entities); ok {
						f, err := c.Estimate(ctx, tasks[1], fin)
						if err != nil {
							return nil, fmt.Errorf("planning extraction of %s: %w", eps[i].UUID, err)
						}
						ests = append(ests, f)
					}
				} else {
					guessed++
					ests = append(ests, llm.CallEstimate{PromptTokens: e.PromptTokens})
				}
			}
			for _, e := range ests {
				calls++
				if e.Cached {
					cached++
					continue
				}
				prompt += e.PromptTokens
			}
		}
	}
	st := StagePlan{Stage: "extract", Units: p.Episodes, CallsExact: stride == 1 && guessed == 0,
		Basis: "one call per episode asked; prompt tokens from the rendered prompts"}
	if len(tasks) == 2 {
		st.Basis = "two calls per episode asked (entities, then facts when there are two); prompt tokens from the rendered prompts"
		if guessed > 0 {
			st.Basis += "; facts calls of episodes not yet extracted counted for every episode, priced like the entities call"
		}
	}
	if sampled > 0 {
		scale := float64(p.Episodes) / float64(sampled)
		st.CachedCalls = int(float64(cached)*scale + 0.5)
		st.Calls = int(float64(calls)*scale+0.5) - st.CachedCalls
		st.PromptTokens = int(float64(prompt)*scale + 0.5)
		per := wire.ExpectedCompletion(tasks[0])
		if len(tasks) == 2 { // entities and facts calls, about as many of each
			per = (per + wire.ExpectedCompletion(tasks[1])) / 2
		}
		st.CompletionTokens = st.Calls * per
	}
	if stride > 1 {
		st.Basis += fmt.Sprintf(" of one episode in %d (%d rendered)", stride, sampled)
	}
	if n := skipped[extract.SkipChitchat]; n > 0 {
		st.Basis += fmt.Sprintf("; chit-chat messages ask nothing (%d of %d rendered)", n, sampled)
	}
	if n := skipped[extract.SkipCovered]; n > 0 {
		st.Basis += "; records covered by declared facts (or without a changed text field) ask nothing"
		if p.Records != nil {
			p.Records.SkipLLM = int(float64(n)*float64(p.Episodes)/float64(sampled) + 0.5)
		}
	}
	if cached > 0 {
		st.Basis += "; cached answers in the checkpoint are free"
	}
	p.chatCost(&st)
	p.Stages = append(p.Stages, st)
	return sizes, nil
}

// chatCost prices a stage's tokens with the chat model, online and in batches.
func (p *Plan) chatCost(st *StagePlan) {
	st.CostUSD, st.BatchCostUSD = costs(p.Price, st.PromptTokens, st.CompletionTokens)
}

// costs prices tokens at a model's online and batch prices (0 without a price).
func costs(pr *pacing.Price, prompt, completion int) (online, batch float64) {
	if pr == nil {
		return 0, 0
	}
	return pr.Estimate(prompt, completion), pr.Batch().Estimate(prompt, completion)
}

// total sums the stages.
func (p *Plan) total() {
	t := StagePlan{Stage: "total", CallsExact: true}
	for _, s := range p.Stages {
		t.Units += s.Units
		t.Calls += s.Calls
		t.CachedCalls += s.CachedCalls
		t.CallsExact = t.CallsExact && s.CallsExact
		t.PromptTokens += s.PromptTokens
		t.CompletionTokens += s.CompletionTokens
		t.CostUSD += s.CostUSD
		t.BatchCostUSD += s.BatchCostUSD
	}
	p.Total = t
}
