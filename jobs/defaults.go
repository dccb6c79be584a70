package jobs

import (
	"path/filepath"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages/extract"
)

// DefaultMaxErrorRatio is limits.max_error_ratio when the job does not set it.
const DefaultMaxErrorRatio = 0.1

// DefaultMaxFailedRatio is limits.max_failed_ratio when the job does not set it.
const DefaultMaxFailedRatio = 0.5

// DefaultMaxVanishedRatio is limits.max_vanished_ratio when the job does not set it: a run may
// forget at most a tenth of a mirror source's episodes at once.
const DefaultMaxVanishedRatio = 0.1

// defaults fills the keys the job leaves unset with their defaults, each once: the job's own
// here, the packages' from their exported defaults. Keys whose default belongs to the code that
// reads them stay zero in the job and mean "that default": the sink's batch sizes, sessions,
// retries and indexes (sinks/memgraph, sinks/cypherl), and the options of the resolve,
// temporal, summarize and community stages (their WithDefaults).
func (j *Job) defaults() {
	if j.Name == "" {
		j.Name = "job"
	}
	if j.Checkpoint == "" {
		j.Checkpoint = filepath.Join(".backfill", j.Name+".db")
	}
	if j.Timezone == "" {
		j.Timezone = "UTC"
	}
	if j.RecordTime == "" {
		j.RecordTime = "ingest"
	}
	j.LLM.defaults()
	j.Embedder.defaults(j.LLM)
	j.Stages.defaults()
	j.Sink.defaults()
	j.Limits.defaults()
	for i := range j.Sources {
		setDefault(&j.Sources[i].Sync, SyncAppend)
	}
}

func (l *LLM) defaults() {
	setDefault(&l.Provider, "offline")
	setDefault(&l.Model, map[string]string{"offline": "offline-rules-v1"}[l.Provider])
	setDefault(&l.APIKeyEnv, "OPENAI_API_KEY")
	setDefault(&l.Concurrency, pacing.DefaultConcurrency)
	setDefault(&l.MaxAttempts, transport.DefaultMaxAttempts)
	setDefault(&l.TimeoutSecs, 120)
	setDefault(&l.Cache, "on")
	setDefault(&l.ResponseFormat, wire.FormatJSONSchema)
	setDefault(&l.Mode, ModeOnline)
	b := &l.Batch
	setDefault(&b.MaxRequests, batch.DefaultMaxRequests)
	setDefault(&b.MaxBytes, batch.DefaultMaxBytes)
	if b.MaxRetries == nil {
		n := batch.DefaultMaxRetries
		b.MaxRetries = &n
	}
	setDefault(&b.PollSeconds, batch.DefaultPoll.Seconds())
}

func (e *Embedder) defaults(l LLM) {
	setDefault(&e.Provider, "offline")
	setDefault(&e.Model, map[string]string{"offline": "hashing-v1"}[e.Provider])
	setDefault(&e.APIKeyEnv, l.APIKeyEnv)
	setDefault(&e.Dimensions, 256)
	setDefault(&e.BatchSize, embed.DefaultBatchSize)
	setDefault(&e.Mode, ModeOnline)
}

func (s *StageOpts) defaults() {
	x := &s.Extract
	setDefault(&x.Context, extract.DefaultContext)
	setDefault(&x.ContextTokens, extract.DefaultContextTokens)
	setDefault(&x.Mode, extract.DefaultMode)
	setDefault(&x.Window, extract.DefaultWindow)
	setDefault(&x.WindowTokens, extract.DefaultWindowTokens)
	setDefault(&x.WindowGapSeconds, extract.DefaultWindowGap.Seconds())
	setDefault(&x.Chitchat, "skip")
	setDefault(&x.LLM, "on")
	setDefault(&s.Resolve.LLM, "on")
}

func (s *Sink) defaults() {
	setDefault(&s.Kind, "sqlite")
	switch s.Kind {
	case "memgraph", "neo4j":
		setDefault(&s.URI, "bolt://127.0.0.1:7687")
	case "falkordb":
		setDefault(&s.URI, DefaultFalkorDBURI)
	}
}

func (l *Limits) defaults() {
	if l.MaxErrorRatio == nil {
		r := DefaultMaxErrorRatio
		l.MaxErrorRatio = &r
	}
	if l.MaxFailedRatio == nil {
		r := DefaultMaxFailedRatio
		l.MaxFailedRatio = &r
	}
	if l.MaxVanishedRatio == nil {
		r := DefaultMaxVanishedRatio
		l.MaxVanishedRatio = &r
	}
}

// setDefault sets *v to def when it is the zero value.
func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
