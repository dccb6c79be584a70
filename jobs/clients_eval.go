package jobs

import (
	"log/slog"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
)

// Clients are a job's chat client and embedder for commands besides run (`backfill eval`):
// the same providers, prompts, pacer, budget (limits.max_cost_usd), prices and cache (the
// checkpoint store) as a run of the job.
type Clients struct {
	LLM      *llm.Client
	Embedder *embed.Client
	c        clients
}

// NewClients builds the clients of a job over its checkpoint store.
func NewClients(j *Job, store *checkpoints.Store, env LookupEnv, log *slog.Logger) (*Clients, error) {
	if env == nil {
		env = osLookupEnv
	}
	if log == nil {
		log = slog.Default()
	}
	c, err := newClients(j, store, env, log, nil)
	if err != nil {
		return nil, err
	}
	return &Clients{LLM: c.llm, Embedder: c.embedder, c: c}, nil
}

// Usage is what the clients spent so far, in total (embeddings included).
func (c *Clients) Usage() LLMReport { return llmReport(c.c.usage().Total, nil) }
