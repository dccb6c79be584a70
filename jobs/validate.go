package jobs

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages/extract"
)

// DefaultMaxErrorRatio is limits.max_error_ratio when the job does not set it.
const DefaultMaxErrorRatio = 0.1

// DefaultMaxFailedRatio is limits.max_failed_ratio when the job does not set it.
const DefaultMaxFailedRatio = 0.5

// DefaultMaxVanishedRatio is limits.max_vanished_ratio when the job does not set it: a run may
// forget at most a tenth of a mirror source's episodes at once.
const DefaultMaxVanishedRatio = 0.1

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
	l := &j.LLM
	if l.Provider == "" {
		l.Provider = "offline"
	}
	if l.Model == "" {
		l.Model = map[string]string{"offline": "offline-rules-v1"}[l.Provider]
	}
	if l.APIKeyEnv == "" {
		l.APIKeyEnv = "OPENAI_API_KEY"
	}
	if l.Concurrency == 0 {
		l.Concurrency = pacing.DefaultConcurrency
	}
	if l.MaxAttempts == 0 {
		l.MaxAttempts = transport.DefaultMaxAttempts
	}
	if l.TimeoutSecs == 0 {
		l.TimeoutSecs = 120
	}
	if l.Cache == "" {
		l.Cache = "on"
	}
	e := &j.Embedder
	if e.Provider == "" {
		e.Provider = "offline"
	}
	if e.Model == "" {
		e.Model = map[string]string{"offline": "hashing-v1"}[e.Provider]
	}
	if e.APIKeyEnv == "" {
		e.APIKeyEnv = l.APIKeyEnv
	}
	if e.Dimensions == 0 {
		e.Dimensions = 256
	}
	if e.BatchSize == 0 {
		e.BatchSize = embed.DefaultBatchSize
	}
	if j.Stages.Extract.Context == 0 {
		j.Stages.Extract.Context = extract.DefaultContext
	}
	if j.Stages.Extract.ContextTokens == 0 {
		j.Stages.Extract.ContextTokens = extract.DefaultContextTokens
	}
	if j.Stages.Extract.Mode == "" {
		j.Stages.Extract.Mode = extract.DefaultMode
	}
	if j.Stages.Extract.Chitchat == "" {
		j.Stages.Extract.Chitchat = "skip"
	}
	if j.Stages.Extract.LLM == "" {
		j.Stages.Extract.LLM = "on"
	}
	if j.Stages.Resolve.LLM == "" {
		j.Stages.Resolve.LLM = "on"
	}
	if j.Sink.Kind == "" {
		j.Sink.Kind = "sqlite"
	}
	if j.graphSink() && j.Sink.URI == "" {
		j.Sink.URI = "bolt://127.0.0.1:7687"
		if j.Sink.Kind == "falkordb" {
			j.Sink.URI = DefaultFalkorDBURI
		}
	}
	if j.Sink.BatchSize == 0 {
		j.Sink.BatchSize = graphdb.DefaultBatchSize
	}
	if j.Sink.Indexes == "" {
		j.Sink.Indexes = string(cypher.DefaultIndexMode)
	}
	if j.Sink.BatchBytes == 0 {
		j.Sink.BatchBytes = graphdb.DefaultBatchBytesFor(cypher.Dialect(j.Sink.Kind), cypher.IndexMode(j.Sink.Indexes))
	}
	if j.Sink.Sessions == 0 {
		j.Sink.Sessions = graphdb.DefaultSessions
	}
	if j.Sink.MaxAttempts == 0 {
		j.Sink.MaxAttempts = graphdb.DefaultMaxAttempts
	}
	if j.Sink.RetrySecs == 0 {
		j.Sink.RetrySecs = graphdb.DefaultRetryBase.Seconds()
	}
	if j.Limits.MaxErrorRatio == nil {
		r := DefaultMaxErrorRatio
		j.Limits.MaxErrorRatio = &r
	}
	if j.Limits.MaxFailedRatio == nil {
		r := DefaultMaxFailedRatio
		j.Limits.MaxFailedRatio = &r
	}
	if j.Limits.MaxVanishedRatio == nil {
		r := DefaultMaxVanishedRatio
		j.Limits.MaxVanishedRatio = &r
	}
	for i := range j.Sources {
		if j.Sources[i].Sync == "" {
			j.Sources[i].Sync = SyncAppend
		}
	}
	if l.ResponseFormat == "" {
		l.ResponseFormat = wire.FormatJSONSchema
	}
	if l.Mode == "" {
		l.Mode = "online"
	}
	if e.Mode == "" {
		e.Mode = "online"
	}
	b := &l.Batch
	if b.MaxRequests == 0 {
		b.MaxRequests = batch.DefaultMaxRequests
	}
	if b.MaxBytes == 0 {
		b.MaxBytes = batch.DefaultMaxBytes
	}
	if b.MaxRetries == nil {
		n := batch.DefaultMaxRetries
		b.MaxRetries = &n
	}
	if b.PollSeconds == 0 {
		b.PollSeconds = batch.DefaultPoll.Seconds()
	}
}

// Validate reports the first invalid setting. Numeric keys are checked first, all alike
// (checkNumbers: finite, not negative, within maxima).
func (j *Job) Validate() error {
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("validating job: %s: %s", key, fmt.Sprintf(format, args...))
	}
	if err := checkNumbers(j); err != nil {
		return err
	}
	if err := j.validateCheckpoint(); err != nil {
		return err
	}
	if _, err := time.LoadLocation(j.Timezone); err != nil {
		return bad("timezone", "unknown zone %q", j.Timezone)
	}
	if j.RecordTime != "ingest" && j.RecordTime != "reference" {
		return bad("record_time", "%q is not ingest or reference", j.RecordTime)
	}
	if len(j.Sources) == 0 {
		return bad("sources", "at least one source is required")
	}
	if err := j.validateRecords(); err != nil {
		return err
	}
	for i, s := range j.Sources {
		if s.Path == "" {
			return bad(fmt.Sprintf("sources[%d].path", i), "required")
		}
		if err := j.loaderSpec(s).Validate(); err != nil {
			return bad(fmt.Sprintf("sources[%d]", i), "%v", err)
		}
		if s.Sync != SyncAppend && s.Sync != SyncMirror {
			return bad(fmt.Sprintf("sources[%d].sync", i), "%q is not %s or %s", s.Sync, SyncAppend, SyncMirror)
		}
	}
	switch j.LLM.Provider {
	case "offline":
	case "openai":
		if j.LLM.BaseURL == "" || j.LLM.Model == "" {
			return bad("llm", "provider openai needs base_url and model")
		}
	default:
		return bad("llm.provider", "%q is not offline or openai", j.LLM.Provider)
	}
	if j.LLM.Cache != "on" && j.LLM.Cache != "off" {
		return bad("llm.cache", "%q is not on or off", j.LLM.Cache)
	}
	if err := wire.CheckFormat(j.LLM.ResponseFormat); err != nil {
		return bad("llm.response_format", "%v", err)
	}
	if err := llm.CheckMaxTokens(j.LLM.MaxTokens); err != nil {
		return bad("llm.max_tokens", "%v", err)
	}
	switch j.Embedder.Provider {
	case "offline":
	case "openai":
		if j.Embedder.BaseURL == "" || j.Embedder.Model == "" {
			return bad("embedder", "provider openai needs base_url and model")
		}
	default:
		return bad("embedder.provider", "%q is not offline or openai", j.Embedder.Provider)
	}
	if err := j.validateModes(); err != nil {
		return err
	}
	if err := j.validateSink(); err != nil {
		return err
	}
	if m := j.Stages.Extract.Mode; m != extract.ModeTwoCall && m != extract.ModeCombined {
		return bad("stages.extract.mode", "%q is not %s or %s", m, extract.ModeCombined, extract.ModeTwoCall)
	}
	if c := j.Stages.Extract.Chitchat; c != "skip" && c != "ask" {
		return bad("stages.extract.chitchat", "%q is not skip or ask", c)
	}
	r := j.Stages.Resolve
	if r.LLM != "on" && r.LLM != "off" {
		return bad("stages.resolve.llm", "%q is not on or off", r.LLM)
	}
	if err := j.Ontology.validate(); err != nil {
		return err
	}
	if err := j.validateCost(); err != nil {
		return err
	}
	return nil
}

// Location is the job's timezone.
func (j *Job) Location() *time.Location {
	loc, err := time.LoadLocation(j.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}
