package jobs

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/offline"
)

func osLookupEnv(k string) (string, bool) { return os.LookupEnv(k) }

type clients struct {
	llm      *llm.Client
	embedder *embed.Client
	pacer    *pacing.Pacer  // shared by both: one bound on requests in flight, one RPM/TPM budget
	budget   *pacing.Budget // shared by both: limits.max_cost_usd
}

// usage is the LLM usage with the embedder's calls under the "embed" stage.
func (c clients) usage() pacing.Usage {
	u := c.llm.Usage()
	e := c.embedder.Usage()
	if u.Stages == nil {
		u.Stages = map[string]pacing.StageUsage{}
	}
	eu := pacing.StageUsage{Calls: e.Requests, CacheHits: e.CacheHits, PromptTokens: e.PromptTokens,
		Retries: e.Retries, InvalidAnswers: e.InvalidAnswers, CostUSD: e.CostUSD}
	s := u.Stages["embed"]
	s.Sum(eu)
	u.Stages["embed"] = s
	u.Total.Sum(eu)
	u.Total.MaxInFlight = int64(c.pacer.Peak())
	return u
}

// newClients builds the chat client and the embedder of a job. The offline provider is served
// in-process by the offline responder through the same HTTP client code as a real provider.
// stop, when closed, makes the shared pacer refuse new requests (pacing.PacerOptions.Stop).
func newClients(j *Job, store *checkpoints.Store, env LookupEnv, log *slog.Logger, stop <-chan struct{}) (clients, error) {
	prompts, err := wire.LoadPrompts(j.LLM.PromptsDir)
	if err != nil {
		return clients{}, err
	}
	var cache llm.Cache = store
	if j.LLM.Cache == "off" {
		cache = nil
	}
	hc, base, key, err := endpoint(j.LLM.Provider, j.LLM.BaseURL, j.LLM.APIKeyEnv, j.Embedder.Dimensions, env)
	if err != nil {
		return clients{}, fmt.Errorf("configuring llm: %w", err)
	}
	j.warnUnpriced(log)
	pacer := pacing.NewPacer(pacing.PacerOptions{Concurrency: j.LLM.Concurrency, RPM: j.LLM.RPM, TPM: j.LLM.TPM, Stop: stop})
	budget := pacing.NewBudget(j.Limits.MaxCostUSD)
	prices := j.prices()
	c := llm.NewClient(llm.Options{BaseURL: base, Model: j.LLM.Model, APIKey: key, Temperature: j.LLM.Temperature,
		FrequencyPenalty: j.LLM.FrequencyPenalty,
		MaxAttempts:      j.LLM.MaxAttempts, Timeout: time.Duration(j.LLM.TimeoutSecs * float64(time.Second)),
		Pacer: pacer, Budget: budget, Prices: prices, Log: log, ResponseFormat: j.LLM.ResponseFormat, MaxTokens: j.LLM.MaxTokens},
		hc, prompts, cache)
	ehc, ebase, ekey, err := endpoint(j.Embedder.Provider, j.Embedder.BaseURL, j.Embedder.APIKeyEnv, j.Embedder.Dimensions, env)
	if err != nil {
		return clients{}, fmt.Errorf("configuring embedder: %w", err)
	}
	e := embed.NewClient(embed.Options{BaseURL: ebase, Model: j.Embedder.Model, APIKey: ekey, Dimensions: j.Embedder.Dimensions,
		BatchSize: j.Embedder.BatchSize, Concurrency: j.LLM.Concurrency, MaxAttempts: j.LLM.MaxAttempts,
		Timeout: time.Duration(j.LLM.TimeoutSecs * float64(time.Second)), Pacer: pacer, Budget: budget, Prices: prices, Log: log},
		ehc, cache)
	return clients{llm: c, embedder: e, pacer: pacer, budget: budget}, nil
}

// endpoint returns the HTTP client, base URL and API key of a provider.
func endpoint(provider, baseURL, keyEnv string, dims int, env LookupEnv) (*http.Client, string, string, error) {
	switch provider {
	case "offline":
		return transport.NewInProcessHTTPClient(offline.NewHandler(offline.Options{Dims: dims})), "http://offline/v1", "", nil
	case "openai":
		key, _ := env(keyEnv)
		return &http.Client{}, baseURL, key, nil
	}
	return nil, "", "", fmt.Errorf("unknown provider %q", provider)
}
