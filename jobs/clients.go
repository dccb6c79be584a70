package jobs

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/offline"
)

func osLookupEnv(k string) (string, bool) { return os.LookupEnv(k) }

type clients struct {
	llm      *llm.Client
	embedder *embed.Client
}

// usage is the LLM usage with the embedder's calls under the "embed" stage.
func (c clients) usage() llm.Usage {
	u := c.llm.Usage()
	e := c.embedder.Usage()
	if u.Stages == nil {
		u.Stages = map[string]llm.StageUsage{}
	}
	s := u.Stages["embed"]
	s.Calls += e.Calls
	s.CacheHits += e.CacheHits
	s.PromptTokens += e.PromptTokens
	s.Retries += e.Retries
	s.MaxInFlight = max(s.MaxInFlight, e.MaxInFlight)
	u.Stages["embed"] = s
	u.Total.Calls += e.Calls
	u.Total.CacheHits += e.CacheHits
	u.Total.PromptTokens += e.PromptTokens
	u.Total.Retries += e.Retries
	u.Total.MaxInFlight = max(u.Total.MaxInFlight, e.MaxInFlight)
	return u
}

// newClients builds the chat client and the embedder of a job. The offline provider is served
// in-process by the offline responder through the same HTTP client code as a real provider.
func newClients(j *Job, store *checkpoints.Store, env LookupEnv) (clients, error) {
	prompts, err := llm.LoadPrompts(j.LLM.PromptsDir)
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
	c := llm.NewClient(llm.Options{BaseURL: base, Model: j.LLM.Model, APIKey: key, Temperature: j.LLM.Temperature,
		MaxAttempts: j.LLM.MaxAttempts, Timeout: time.Duration(j.LLM.TimeoutSecs) * time.Second,
		Concurrency: j.LLM.Concurrency}, hc, prompts, cache)
	ehc, ebase, ekey, err := endpoint(j.Embedder.Provider, j.Embedder.BaseURL, j.Embedder.APIKeyEnv, j.Embedder.Dimensions, env)
	if err != nil {
		return clients{}, fmt.Errorf("configuring embedder: %w", err)
	}
	e := embed.NewClient(embed.Options{BaseURL: ebase, Model: j.Embedder.Model, APIKey: ekey, Dimensions: j.Embedder.Dimensions,
		BatchSize: j.Embedder.BatchSize, Concurrency: j.LLM.Concurrency, MaxAttempts: j.LLM.MaxAttempts,
		Timeout: time.Duration(j.LLM.TimeoutSecs) * time.Second}, ehc, cache)
	return clients{llm: c, embedder: e}, nil
}

// endpoint returns the HTTP client, base URL and API key of a provider.
func endpoint(provider, baseURL, keyEnv string, dims int, env LookupEnv) (*http.Client, string, string, error) {
	switch provider {
	case "offline":
		return llm.NewInProcessHTTPClient(offline.NewHandler(offline.Options{Dims: dims})), "http://offline/v1", "", nil
	case "openai":
		key, _ := env(keyEnv)
		return &http.Client{}, baseURL, key, nil
	}
	return nil, "", "", fmt.Errorf("unknown provider %q", provider)
}
