package pipeline

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/offline"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/telemetry"
)

// Clients are a job's chat client and embedder, as a run, a plan and an eval build them.
type Clients struct {
	LLM      *llm.Client
	Embedder *embed.Client
	Pacer    *pacing.Pacer  // shared by both: one bound on requests in flight, one RPM/TPM budget
	Budget   *pacing.Budget // shared by both: limits.max_cost_usd
	batchObs batch.Observer // watches the batches UseBatches starts (Observe); nil: none
}

// Observe makes t (a run's telemetry; nil: none) watch the clients' calls and usage and, in
// batch mode, their provider batches: call it before UseBatches and before the first call.
func (c *Clients) Observe(j *Job, t *telemetry.Telemetry) {
	if t == nil {
		return
	}
	c.LLM.Observe(t.Client(calls.OperationChat, telemetry.Provider(j.LLM.Provider), c.LLM.Model(), remoteURL(j.LLM.Provider, j.LLM.BaseURL)))
	c.Embedder.Observe(t.Client(calls.OperationEmbeddings, telemetry.Provider(j.Embedder.Provider), c.Embedder.Model(),
		remoteURL(j.Embedder.Provider, j.Embedder.BaseURL)))
	c.batchObs = t.Batches()
}

// remoteURL is the base URL a provider's requests go to over the network, "" in-process.
func remoteURL(provider, baseURL string) string {
	if provider == "offline" {
		return ""
	}
	return baseURL
}

// NewClients builds the chat client and the embedder of a job: its providers, prompts, request
// parameters, pacer, budget (limits.max_cost_usd), prices and cache (store, unless llm.cache is
// off or store is nil). The offline provider is served in-process by the offline responder
// through the same HTTP client code as a real provider. API keys are read from env
// (os.LookupEnv when nil); log (nil: none) gets the warning about unpriced models and the
// retries. stop, when closed, makes the shared pacer refuse new requests
// (pacing.PacerOptions.Stop). It is the one place a job becomes clients.
func NewClients(j *Job, store *checkpoints.Store, env jobs.LookupEnv, log *slog.Logger, stop <-chan struct{}) (*Clients, error) {
	if env == nil {
		env = os.LookupEnv
	}
	prompts, err := wire.LoadPrompts(j.LLM.PromptsDir)
	if err != nil {
		return nil, err
	}
	var cache llm.Cache
	if store != nil && j.LLM.Cache != "off" {
		cache = store
	}
	hc, base, key, err := endpoint(j.LLM.Provider, j.LLM.BaseURL, j.LLM.APIKeyEnv, j.Embedder.Dimensions, env)
	if err != nil {
		return nil, fmt.Errorf("configuring llm: %w", err)
	}
	ehc, ebase, ekey, err := endpoint(j.Embedder.Provider, j.Embedder.BaseURL, j.Embedder.APIKeyEnv, j.Embedder.Dimensions, env)
	if err != nil {
		return nil, fmt.Errorf("configuring embedder: %w", err)
	}
	j.WarnUnpriced(log)
	c := &Clients{Pacer: pacing.NewPacer(pacing.PacerOptions{Concurrency: j.LLM.Concurrency, RPM: j.LLM.RPM, TPM: j.LLM.TPM, Stop: stop}),
		Budget: pacing.NewBudget(j.Limits.MaxCostUSD)}
	lo := LLMOptions(j)
	lo.BaseURL, lo.APIKey, lo.Pacer, lo.Budget, lo.Log = base, key, c.Pacer, c.Budget, log
	c.LLM = llm.NewClient(lo, hc, prompts, cache)
	eo := EmbedOptions(j)
	eo.BaseURL, eo.APIKey, eo.Pacer, eo.Budget, eo.Log = ebase, ekey, c.Pacer, c.Budget, log
	c.Embedder = embed.NewClient(eo, ehc, cache)
	return c, nil
}

// LLMOptions are the chat client's options from the job: every llm.* key that reaches a request
// or the client (the endpoint, key, pacer, budget and log are NewClients').
func LLMOptions(j *Job) llm.Options {
	o := j.LLM.Settings.Options()
	o.Prices = j.Prices()
	return o
}

// EmbedOptions are the embedder's options from the job (the endpoint, key, pacer, budget and
// log are NewClients'): its keys, and the llm section's concurrency, attempts and timeout.
func EmbedOptions(j *Job) embed.Options {
	e, l := j.Embedder, j.LLM.Settings.Options()
	return embed.Options{Model: e.Model, Dimensions: e.Dimensions, BatchSize: e.BatchSize, Concurrency: j.LLM.Concurrency,
		MaxAttempts: l.MaxAttempts, Timeout: l.Timeout, Prices: j.Prices()}
}

// endpoint returns the HTTP client, base URL and API key of a provider.
func endpoint(provider, baseURL, keyEnv string, dims int, env jobs.LookupEnv) (*http.Client, string, string, error) {
	switch provider {
	case ProviderOffline:
		return transport.NewInProcessHTTPClient(offline.NewHandler(offline.Options{Dims: dims})), "http://offline/v1", "", nil
	case ProviderOpenAI:
		key, _ := env(keyEnv)
		return &http.Client{}, baseURL, key, nil
	}
	return nil, "", "", fmt.Errorf("unknown provider %q", provider)
}

// Usage is the LLM usage, in total and by stage, with the embedder's calls under the embed
// stage.
func (c *Clients) Usage() pacing.Usage {
	u := c.LLM.Usage()
	e := c.Embedder.Usage()
	if u.Stages == nil {
		u.Stages = map[string]pacing.StageUsage{}
	}
	eu := e.StageUsage()
	s := u.Stages[embed.Stage]
	s.Sum(eu)
	u.Stages[embed.Stage] = s
	u.Total.Sum(eu)
	u.Total.MaxInFlight = int64(c.Pacer.Peak())
	return u
}

// UsageReport is a stage's (or the total) usage as the run report counts it, with the answer
// repairs of the stage.
func UsageReport(s pacing.StageUsage, repaired map[string]int) report.LLM {
	return report.LLM{Calls: int(s.Calls), CacheHits: int(s.CacheHits), PromptTokens: int(s.PromptTokens), CachedPromptTokens: int(s.CachedTokens),
		CompletionTokens: int(s.CompletionTokens), ReasoningTokens: int(s.ReasoningTokens), Retries: int(s.Retries),
		MaxInFlight: int(s.MaxInFlight), CostUSD: s.CostUSD, InputUSD: s.Cost.Input, CachedInputUSD: s.Cost.CachedInput,
		OutputUSD: s.Cost.Output, InvalidAnswers: int(s.InvalidAnswers),
		Truncated: int(s.Truncated), Salvaged: int(s.Salvaged), AnswersRepaired: repaired}
}
