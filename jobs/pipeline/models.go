package pipeline

import (
	"errors"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/providers/offline"
)

// Request modes (llm.mode, embedder.mode): how NewClients' clients send requests.
const (
	ModeOnline = "online"
	ModeBatch  = "batch"
)

// Providers (llm.provider, embedder.provider): where requests go (endpoint).
const (
	ProviderOffline = "offline" // the offline responder, in-process
	ProviderOpenAI  = "openai"  // any OpenAI-compatible server at base_url
)

// DefaultAPIKeyEnv is llm.api_key_env when the job does not name a variable.
const DefaultAPIKeyEnv = "OPENAI_API_KEY"

// Endpoint is where a model's requests go: its provider, base URL and the variable holding its
// API key (llm.* and embedder.*); endpoint reads them.
type Endpoint struct {
	Provider  string
	BaseURL   string
	APIKeyEnv string

	keyEnvNamed bool // the job names APIKeyEnv itself (KeyNeeds)
}

// declare declares the endpoint's keys; doc is the provider's doc line.
func (e *Endpoint) declare(s *options.Section, doc, keyDoc string, keyDefault options.Opt) {
	s.String(&e.Provider, "provider", doc, options.Default(ProviderOffline), options.Words(ProviderOffline, ProviderOpenAI))
	s.String(&e.BaseURL, "base_url", "the endpoint (`openai` needs it)")
	s.String(&e.APIKeyEnv, "api_key_env", keyDoc, keyDefault)
}

// check checks that provider openai has a base URL and a model.
func (e *Endpoint) check(model string) error {
	if e.Provider == ProviderOpenAI && (e.BaseURL == "" || model == "") {
		return errors.New("provider openai needs base_url and model")
	}
	return nil
}

// LLM is the job's llm section: the chat model's endpoint, cache and mode (read here), its
// client's keys (llm.Settings), its pacer's (pacing.Limits, shared with the embedder), its
// prices and its batches.
type LLM struct {
	Endpoint
	llm.Settings
	pacing.Limits
	Cache  string // on | off
	Prices map[string]pacing.Price
	Mode   string
	Batch  batch.Settings
}

// declare declares the llm section's keys.
func (l *LLM) declare(s *options.Section) {
	l.Endpoint.declare(s, "`offline` (in-process rule-based responder, no network) or `openai` (any OpenAI-compatible server)",
		"environment variable that holds the API key; keys are never logged or stored. `run` refuses to start (exit 2) "+
			"without the key when `base_url` is not on this machine (127.0.0.0/8, `::1`, `localhost`) or when the job "+
			"names the variable; a server on loopback (`llm-stub`, llama.cpp) is asked without one (a keyless server on "+
			"another host: set the variable to any value)", options.DefaultText("`"+DefaultAPIKeyEnv+"`"))
	l.Settings.Declare(s)
	l.Limits.Declare(s)
	s.String(&l.Cache, "cache", "`on` or `off`: keep every answer in the checkpoint store, keyed by what was asked",
		options.Default("on"), options.Words("on", "off"))
	pacing.DeclarePrices(s, &l.Prices)
	s.String(&l.Mode, "mode", "`online` (every request sent as it comes) or `batch` (through the provider's Batch API at its "+
		"batch price; needs provider `openai` and `llm.cache: on`; see [Batch mode](docs/cost.md#batch-mode))",
		options.Default(ModeOnline), options.Words(ModeOnline, ModeBatch))
	s.Section("batch", "provider batches (`llm.mode` or `embedder.mode` batch)", l.Batch.Declare)
	s.Defaults(func() {
		if l.Provider == ProviderOffline && l.Model == "" {
			l.Model = offline.Model
		}
		l.keyEnvNamed = l.APIKeyEnv != ""
		if l.APIKeyEnv == "" {
			l.APIKeyEnv = DefaultAPIKeyEnv
		}
	})
	s.Check(func() error { return l.Endpoint.check(l.Model) })
}

// Embedder is the job's embedder section: the embedding model's endpoint and mode (read here)
// and its client's keys (embed.Settings).
type Embedder struct {
	Endpoint
	embed.Settings
	Mode string
}

// declare declares the embedder section's keys; l is the llm section, whose api_key_env is the
// embedder's default.
func (e *Embedder) declare(s *options.Section, l *LLM) {
	e.Endpoint.declare(s, "as for `llm` (`offline`: hashing embedder)", "as for `llm`", options.DefaultText("`llm.api_key_env`"))
	e.Settings.Declare(s)
	s.String(&e.Mode, "mode", "`online` or `batch` (one batch request line per `batch_size` texts, with the `llm.batch` "+
		"settings)", options.Default(ModeOnline), options.Words(ModeOnline, ModeBatch))
	s.Defaults(func() {
		if e.Provider == ProviderOffline && e.Model == "" {
			e.Model = hashing.Model
		}
		e.keyEnvNamed = e.APIKeyEnv != "" || l.keyEnvNamed
		if e.APIKeyEnv == "" {
			e.APIKeyEnv = l.APIKeyEnv
		}
	})
	s.Check(func() error { return e.Endpoint.check(e.Model) })
}

// validateModes checks what batch mode (llm.mode, embedder.mode) needs: an OpenAI-compatible
// provider with a batch API, and the cache (batch answers reach the calls through it).
func (j *Job) validateModes() error {
	for _, m := range []struct{ key, mode, provider string }{
		{"llm.mode", j.LLM.Mode, j.LLM.Provider}, {"embedder.mode", j.Embedder.Mode, j.Embedder.Provider},
	} {
		if m.mode != ModeBatch {
			continue
		}
		if m.provider != ProviderOpenAI {
			return options.Bad(m.key, "batch needs provider openai (a server with the files and batches API), not %q", m.provider)
		}
		if j.LLM.Cache != "on" {
			return options.Bad(m.key, "batch needs llm.cache on (batch answers reach the calls through the cache)")
		}
	}
	return nil
}

// BatchMode reports whether the chat model or the embedder sends batches.
func (j *Job) BatchMode() bool { return j.LLM.Mode == ModeBatch || j.Embedder.Mode == ModeBatch }
