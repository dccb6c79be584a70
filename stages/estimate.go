package stages

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/report"
)

// Estimate is what a plan predicts for one stage (Stage.Estimate). Every token count is an
// estimate (wire.EstimateTokens); calls after extraction are estimated from Ratios.
type Estimate struct {
	Stage string `json:"stage"`
	Units int    `json:"units"` // exact
	// Done counts the units whose fingerprint on record in the job's store equals the one a run
	// would compute: a run skips them, they cost nothing.
	Done             int     `json:"done"`
	Calls            int     `json:"calls"`        // requests to send (excluding retries)
	CachedCalls      int     `json:"cached_calls"` // calls the cache already answers (extract only)
	CallsExact       bool    `json:"calls_exact"`
	PromptTokens     int     `json:"prompt_tokens"`     // estimate
	CompletionTokens int     `json:"completion_tokens"` // estimate (wire.ExpectedCompletion per call)
	CostUSD          float64 `json:"cost_usd"`          // estimate, online prices
	BatchCostUSD     float64 `json:"batch_cost_usd"`    // estimate, batch prices (llm.mode: batch)
	// CachedPromptTokens are the prompt tokens a provider's prompt cache would serve, of
	// PromptTokens (extraction: each rendered prompt against the one before,
	// pacing.OpenAIPromptCache; the later stages count none). Cost is CostUSD by kind of token.
	CachedPromptTokens int         `json:"cached_prompt_tokens"`
	Cost               pacing.Cost `json:"cost"`
	Basis              string      `json:"basis"`
	// Embeddings are the embedding requests the stage makes (the embed stage's, and the
	// community names'): the plan counts them all under the embed stage at the embedding price,
	// as the run report counts the embedder's usage.
	Embeddings Embeddings `json:"-"`
	// Records (ingest) is what the JSON records read hold (nil when there are none): the plan's
	// records.
	Records *report.Records `json:"-"`
	// SkipLLM (extract) counts the units whose extraction asks the LLM nothing because declared
	// facts cover them: the plan's records.skip_llm.
	SkipLLM int `json:"-"`
	// GroupDone counts the units of PlanEnv.Group that are done (of Done), for status --group.
	GroupDone int `json:"-"`
}

// Embeddings are estimated embedding requests and their tokens.
type Embeddings struct {
	Calls, Tokens int
}

// Estimator prices a call without making it: its prompt tokens, and whether the cache answers
// it. *llm.Client satisfies it.
type Estimator interface {
	Estimate(ctx context.Context, task string, input any) (llm.CallEstimate, error)
}

// PlanEnv is what a stage's Estimate reads. Its Env is the run's as a plan sees it: the Store
// is the plan's scratch store (the job's episodes, with the sources ingested over them as a run
// would ingest them), the LLM and Embedder are the clients a run builds (their cache the job's
// store), never called.
type PlanEnv struct {
	Env
	// Prev is the job's store, read only: its unit records say which units are done and its
	// stored extractions size the facts calls of two-call extraction. Nil when there is none.
	Prev      *checkpoints.Store
	Estimator Estimator
	Sample    int    // extraction prompts rendered at most
	Ratios    Ratios // what a plan assumes about the graph extraction will find
	// Price and EmbeddingPrice are the chat and embedding models' prices (nil: no price, cost 0).
	Price, EmbeddingPrice *pacing.Price
	EmbedBatch            int // texts per embedding request
	// Done holds the groups whose units are done, by stage, as the stages before found them: a
	// group stage's unit can be done only when its upstream's is.
	Done Done
	// Group, when set, names a group whose done units each estimate also counts apart
	// (Estimate.GroupDone).
	Group string
}

// Done holds the groups whose units a plan found done, by stage (an episode stage's group is
// done when all its units are).
type Done map[string]map[string]bool

// Add records that group's units of stage are done.
func (d Done) Add(stage, group string) {
	if d[stage] == nil {
		d[stage] = map[string]bool{}
	}
	d[stage][group] = true
}

// Has reports whether group's units of stage are done.
func (d Done) Has(stage, group string) bool { return d[stage][group] }

// Stored returns the fingerprints on record of stage's units in the job's store (none without
// a store).
func (e PlanEnv) Stored(ctx context.Context, stage string) (map[string]string, error) {
	if e.Prev == nil {
		return map[string]string{}, nil
	}
	return e.Prev.Fingerprints(ctx, stage)
}

// ChatCost prices an estimate's tokens at the chat model's online and batch prices.
func (e PlanEnv) ChatCost(est *Estimate) { est.Price(e.Price) }

// Price sets the estimate's costs from its tokens at a model's online prices (its cached prompt
// tokens at the cached input price) and batch prices (which know no prompt cache); 0 without a
// price.
func (est *Estimate) Price(pr *pacing.Price) {
	if pr == nil {
		est.Cost, est.CostUSD, est.BatchCostUSD = pacing.Cost{}, 0, 0
		return
	}
	est.Cost = pr.Tokens(est.PromptTokens, est.CachedPromptTokens, est.CompletionTokens)
	est.CostUSD, est.BatchCostUSD = est.Cost.Total(), pr.Batch().Estimate(est.PromptTokens, est.CompletionTokens)
}

// PromptTokens is the estimated prompt of one call of task with input.
func (e PlanEnv) PromptTokens(ctx context.Context, task string, input any) (int, error) {
	c, err := e.Estimator.Estimate(ctx, task, input)
	return c.PromptTokens, err
}

// CeilDiv is a/b rounded up (0 when either is not positive).
func CeilDiv(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}
