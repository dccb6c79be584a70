package planner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
)

// DefaultSample is how many extraction prompts a plan renders at most.
const DefaultSample = 2000

// Options are the per-invocation settings of a plan.
type Options struct {
	Checkpoint string       // the job's store (default: the job's checkpoint); read only if it exists
	Shard      ingest.Shard // plan one shard's groups
	Sample     int          // extraction prompts rendered at most (DefaultSample)
	Log        *slog.Logger // default: slog.Default()
	FS         loaders.FS   // where sources are read (default: pipeline.SourceFS)
}

func (o *Options) defaults(j *pipeline.Job) {
	if o.Checkpoint == "" {
		o.Checkpoint = j.Checkpoint
	}
	if o.Sample < 1 {
		o.Sample = DefaultSample
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.FS == nil {
		o.FS = pipeline.SourceFS(j)
	}
}

// Plan is a dry run of a job: what it would read and an estimate of what it would ask the LLM,
// stage by stage over the job's stages (pipeline.Stages). Episodes and groups are exact: the
// sources are ingested into a scratch store over a copy of the job's episodes, as a run ingests
// them into its store. A unit whose fingerprint on record in the job's store equals the one a
// run would compute is done and costs nothing. Extraction calls are exact and their prompt tokens
// are estimated from the real rendered prompts; a call the job's cache already answers is
// counted as cached and free. The calls of later stages depend on what extraction finds and are
// estimates from the ratios in Assumptions. Every token count is an estimate (wire.EstimateTokens).
type Plan struct {
	Job            string            `json:"job"`
	Episodes       int               `json:"episodes"`
	Groups         int               `json:"groups"`
	Quarantined    int               `json:"quarantined"`
	Model          string            `json:"model"`
	Mode           string            `json:"mode"`           // llm.mode: which of the two costs the job pays
	EmbeddingMode  string            `json:"embedding_mode"` // embedder.mode
	Price          *pacing.Price     `json:"price"`          // nil: the model has no price; cost is then 0
	EmbeddingModel string            `json:"embedding_model"`
	EmbeddingPrice *pacing.Price     `json:"embedding_price"`
	Stages         []stages.Estimate `json:"stages"`
	Total          stages.Estimate   `json:"total"`
	Assumptions    stages.Ratios     `json:"assumptions"`
	Notes          []string          `json:"notes"`
	// Records is what the JSON records hold (absent when there are none); SkipLLM counts the
	// records whose extraction asks the LLM nothing.
	Records *report.Records `json:"records,omitempty"`
	// Needs are what a run of the job would lack on this machine (runner.Preflight: an API key,
	// a reachable sink), one line each; the CLI fills it in. A run refuses to start without them.
	Needs []string `json:"needs,omitempty"`

	graph         *stages.Ratios // measured on the job's store's graph (nil when it has none)
	graphEpisodes int            // the episodes of that graph
}

// Make plans j without calling the LLM: it ingests the sources into a scratch store and walks
// the job's stages, each estimating its units and calls (stages.Stage.Estimate).
func Make(ctx context.Context, j *pipeline.Job, opts Options) (*Plan, error) {
	opts.defaults(j)
	dir, err := os.MkdirTemp("", "backfill-plan-")
	if err != nil {
		return nil, fmt.Errorf("creating plan store: %w", err)
	}
	defer os.RemoveAll(dir)
	scratch, err := checkpoints.Open(ctx, filepath.Join(dir, "plan.db"))
	if err != nil {
		return nil, err
	}
	defer scratch.Close()
	p := &Plan{Job: j.Name, Model: j.LLM.Model, Mode: j.LLM.Mode, EmbeddingModel: j.Embedder.Model, EmbeddingMode: j.Embedder.Mode,
		Assumptions: stages.DefaultRatios()}
	p.price(j)
	prev, err := p.openPrev(ctx, j, opts.Checkpoint, opts.Log)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		defer prev.Close()
		if err := seed(ctx, scratch, prev); err != nil {
			return nil, err
		}
	}
	env, list, err := p.setUp(j, opts, scratch, prev)
	if err != nil {
		return nil, err
	}
	if err := p.estimate(ctx, env, list); err != nil {
		return nil, err
	}
	return p, p.count(ctx, scratch)
}

// price takes the models' prices (pipeline.Job.ModelPrices), with a note for a model that has
// none.
func (p *Plan) price(j *pipeline.Job) {
	p.Price, p.EmbeddingPrice = j.ModelPrices()
	switch pr := p.Price; {
	case pr == nil:
		p.Notes = append(p.Notes, fmt.Sprintf("model %q has no price: costs are 0 (add llm.prices.%s)", j.LLM.Model, j.LLM.Model))
	case pr.InputPerMTok > 0 && pr.BatchInputPerMTok == 0:
		p.Notes = append(p.Notes, fmt.Sprintf("model %q has no batch price: batch costs use its online price (add llm.prices.%s.batch_input_per_mtok and batch_output_per_mtok)",
			j.LLM.Model, j.LLM.Model))
	}
}

// openPrev opens the job's store read-only (pipeline.OpenCheckpoint: a local path or the latest
// snapshot of one kept in object storage), if there is one of this schema version, and measures
// the ratios on its graph (used or not by chooseRatios); nil when there is none.
func (p *Plan) openPrev(ctx context.Context, j *pipeline.Job, path string, log *slog.Logger) (*checkpoints.Store, error) {
	prev, err := pipeline.OpenCheckpoint(ctx, j, path, pipeline.CheckpointOptions{Log: log})
	switch {
	case errors.Is(err, fs.ErrNotExist): // the job has not run
		return nil, nil
	case errors.Is(err, checkpoints.ErrSchemaVersion): // plan never writes it, so never upgrades it
		p.Notes = append(p.Notes, fmt.Sprintf("checkpoint %s is of another schema version: its cache and graph are not used", path))
		return nil, nil
	case err != nil:
		return nil, err
	}
	if c, err := prev.Count(ctx); err == nil {
		if r, ok := stages.RatiosFrom(c); ok {
			p.graph, p.graphEpisodes = &r, c.Episodes
		}
	}
	return prev, nil
}

// setUp builds the job's clients and stages as a run does, over the scratch store; the clients'
// cache is the job's store (none with llm.cache off).
func (p *Plan) setUp(j *pipeline.Job, opts Options, scratch, prev *checkpoints.Store) (stages.PlanEnv, []stages.Stage, error) {
	cl, err := pipeline.NewClients(j, prev, nil, nil, nil)
	if err != nil {
		return stages.PlanEnv{}, nil, err
	}
	list, err := pipeline.Stages(j, pipeline.Inputs{FS: opts.FS, Shard: opts.Shard})
	if err != nil {
		return stages.PlanEnv{}, nil, err
	}
	env := stages.PlanEnv{
		Env: stages.Env{Store: scratch, LLM: cl.LLM, Embedder: cl.Embedder, Clock: graph.SystemClock{}, RecordTime: j.RecordTime,
			Concurrency: j.LLM.Concurrency, Progress: stages.NoProgress{}, Log: opts.Log},
		Prev: prev, Estimator: cl.LLM, Sample: opts.Sample, Ratios: p.Assumptions, Price: p.Price,
		EmbeddingPrice: p.EmbeddingPrice, EmbedBatch: j.Embedder.BatchSize, Done: stages.Done{},
	}
	return env, list, nil
}

// estimate walks the stages in order, each estimating its units and calls; the embedding
// requests of every stage are counted under the embed stage, at the embedding price, as a run's
// report counts them.
func (p *Plan) estimate(ctx context.Context, env stages.PlanEnv, list []stages.Stage) error {
	var emb stages.Embeddings
	exact := true
	for _, s := range list {
		if s.Step().Name == stages.Resolve { // the first stage estimated from the ratios
			if err := p.chooseRatios(ctx, &env, s); err != nil {
				return err
			}
		}
		est, err := s.Estimate(ctx, env)
		if err != nil {
			return err
		}
		if est.Records != nil {
			p.Records = est.Records
		}
		if p.Records != nil && est.SkipLLM > 0 {
			p.Records.SkipLLM = est.SkipLLM
		}
		emb.Calls += est.Embeddings.Calls
		emb.Tokens += est.Embeddings.Tokens
		exact = exact && (est.CallsExact || est.Embeddings.Calls == 0)
		p.Stages = append(p.Stages, est)
	}
	for i := range p.Stages {
		if st := &p.Stages[i]; st.Stage == stages.Embed {
			st.Calls, st.PromptTokens, st.CallsExact = emb.Calls, emb.Tokens, exact
			st.Price(p.EmbeddingPrice)
		}
	}
	if p.estimated() {
		p.Notes = append(p.Notes, fmt.Sprintf("calls after extract are estimates from the assumptions (%s); "+
			"they ignore the cache and count no retries", p.Assumptions.Source))
	}
	if done := p.done(); done != "" {
		p.Notes = append(p.Notes, done)
	}
	p.total()
	return nil
}

// chooseRatios sets the ratios the stages from resolve on are estimated with (p.Assumptions,
// env.Ratios), saying where they come from: measured on the checkpoint's graph when some of its
// groups were resolved under the job's settings (their resolve fingerprint on record is the one
// a run would compute: the done groups of resolve's Estimate, whose calls are then estimated
// again with the ratios chosen), saying how many; the defaults when there is no graph,
// or when it was built under other settings only (another model or options), with a note giving
// the ratios of that graph, which are not used.
func (p *Plan) chooseRatios(ctx context.Context, env *stages.PlanEnv, resolve stages.Stage) error {
	if p.graph == nil {
		p.Assumptions.Source = "defaults (the checkpoint holds no graph to measure)"
		env.Ratios = p.Assumptions
		return nil
	}
	est, err := resolve.Estimate(ctx, *env)
	if err != nil {
		return err
	}
	g := *p.graph
	switch {
	case est.Done == 0:
		p.Assumptions.Source = "defaults (the checkpoint's graph was built under other settings)"
		p.Notes = append(p.Notes, fmt.Sprintf("the checkpoint's graph (%d episodes) was built under other settings (another model or "+
			"options: none of its groups is resolved as this job would resolve it): its %.2f entities and %.2f facts per episode are not used",
			p.graphEpisodes, g.EntitiesPerEpisode, g.FactsPerEpisode))
		env.Ratios = p.Assumptions
		return nil
	case est.Done < est.Units:
		g.Source = fmt.Sprintf("%s, %d of %d groups resolved under this job's settings (the others are new, or were resolved under other settings: another model or options)",
			g.Source, est.Done, est.Units)
	default:
		g.Source += ", resolved under this job's settings"
	}
	p.Assumptions, env.Ratios = g, g
	return nil
}

// Nothing reports whether a run of the job has nothing to do: every unit of every stage is
// done under the job's settings (the run reads the sources again, and asks nothing).
func (p *Plan) Nothing() bool { return p.Total.Done == p.Total.Units && p.Total.Calls == 0 }

// estimated reports whether a stage after extract has units to do, whose calls are estimates.
func (p *Plan) estimated() bool {
	for _, s := range p.Stages {
		if s.Stage != stages.Ingest && s.Stage != stages.Extract && s.Done < s.Units {
			return true
		}
	}
	return false
}

// done says which stages' units are done: their fingerprint is on record in the job's store, so
// a run skips them ("" when none is).
func (p *Plan) done() string {
	var all, some []string
	for _, s := range p.Stages {
		switch {
		case s.Done == 0:
		case s.Done == s.Units:
			all = append(all, s.Stage)
		default:
			some = append(some, fmt.Sprintf("%s (%d of %d)", s.Stage, s.Done, s.Units))
		}
	}
	if len(all)+len(some) == 0 {
		return ""
	}
	msg := "units done (their fingerprint on record in the checkpoint: a run skips them, they cost nothing):"
	if len(all) > 0 {
		msg += fmt.Sprintf(" all of %s", join(all))
	}
	if len(some) > 0 {
		if len(all) > 0 {
			msg += ";"
		}
		msg += " " + join(some)
	}
	return msg
}

// count takes the episodes, groups and quarantined rows from the scratch store.
func (p *Plan) count(ctx context.Context, scratch *checkpoints.Store) error {
	c, err := scratch.Count(ctx)
	if err != nil {
		return err
	}
	groups, err := scratch.Groups(ctx)
	if err != nil {
		return err
	}
	p.Episodes, p.Groups, p.Quarantined = c.Episodes, len(groups), c.Quarantined
	return nil
}

// total sums the stages. Its units and done count the units of the stages that keep unit
// records, not ingest's rows, which every run reads again: when they are equal a run has nothing
// to do (Nothing).
func (p *Plan) total() {
	t := stages.Estimate{Stage: "total", CallsExact: true}
	for _, s := range p.Stages {
		if s.Stage != stages.Ingest {
			t.Units += s.Units
			t.Done += s.Done
		}
		t.Calls += s.Calls
		t.CachedCalls += s.CachedCalls
		t.CallsExact = t.CallsExact && s.CallsExact
		t.PromptTokens += s.PromptTokens
		t.CompletionTokens += s.CompletionTokens
		t.CachedPromptTokens += s.CachedPromptTokens
		t.CostUSD += s.CostUSD
		t.Cost = t.Cost.Add(s.Cost)
		t.BatchCostUSD += s.BatchCostUSD
	}
	p.Total = t
}
