package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/report"
)

// Record-time modes (job key record_time; docs/concepts.md, "Two times").
const (
	RecordIngest    = "ingest"
	RecordReference = "reference"
)

// LLM answers one task; *llm.Client satisfies it. TaskVersion hashes everything besides the
// input that can change a task's answer (model, temperature, prompt templates, answer schema and
// every other request parameter): stages put it into their keys (TaskVersionsOf, Key), so a change
// to any of them re-runs exactly the units that ask that task.
type LLM interface {
	Call(ctx context.Context, stage, task string, input, out any) error
	TaskVersion(task string) string
}

// Embedder turns texts into vectors; the embed package satisfies it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimensions() int
	Model() string
}

// Batches is the provider batch machinery of a run whose LLM or embedder is in batch mode
// (llm.mode, embedder.mode: batch): calls queue their requests and return batch.ErrPending, and
// the stage runner submits what they queued (Flush), waits for the batches (Wait) and runs the
// pending units again (a wave). *batch.Batcher satisfies it, one per client; jobs/pipeline
// joins them.
type Batches interface {
	// Flush submits the requests queued so far.
	Flush(ctx context.Context) error
	// Wait polls until every batch a call found pending has ended and its answers are stored,
	// and returns how many batches it waited for; pacing.ErrStopped when stop closes first.
	Wait(ctx context.Context, stop <-chan struct{}) (int, error)
	// Release forgets the batch requests of the calls that finished (the stage ended).
	Release(ctx context.Context) error
}

// Progress receives a run's progress; NoProgress ignores it.
type Progress interface {
	// Ahead gives the work the run's stages have still to do, in their order, once it is known
	// (the runner gives it after ingest, when a Options.Ahead estimates it).
	Ahead(work []Work)
	// Start begins a stage of total units (-1: unknown).
	Start(stage string, total int)
	// Add counts n units this run finished (committed, done or failed).
	Add(n int)
	// Skip counts n units that were done before (their fingerprint on record): nothing to do.
	Skip(n int)
	Done()
}

// Work is a stage's work still to do: its units not done, and the LLM and embedding requests
// they are estimated to make (as a plan estimates them).
type Work struct {
	Stage    string
	Units    int
	Requests int
}

// NoProgress is the no-op Progress.
type NoProgress struct{}

// Ahead does nothing.
func (NoProgress) Ahead([]Work) {}

// Start does nothing.
func (NoProgress) Start(string, int) {}

// Add does nothing.
func (NoProgress) Add(int) {}

// Skip does nothing.
func (NoProgress) Skip(int) {}

// Done does nothing.
func (NoProgress) Done() {}

// Env is what a stage runs with.
type Env struct {
	Store       *checkpoints.Store
	LLM         LLM
	Embedder    Embedder
	Clock       graph.Clock
	RecordTime  string // RecordIngest or RecordReference
	Concurrency int    // llm.concurrency: units (and calls of a unit) in flight at once; the pacer bounds requests
	Progress    Progress
	Log         *slog.Logger
	// Stop, when closed, asks the stage to start no new unit and to return ErrInterrupted once
	// the units in flight have committed (a graceful drain); nil never stops. The LLM client's
	// pacer shares it and refuses new requests (pacing.ErrStopped), so a unit in flight starts no
	// new call either: it ends uncommitted and runs again on the next run.
	Stop <-chan struct{}
	// MaxFailedRatio stops a stage once its failed units pass this share of the units it ran
	// (see RunStream); nil: no limit.
	MaxFailedRatio *float64
	// Repairs counts the answer repairs of the stages (llm.answers_repaired); nil counts nothing.
	Repairs *Tally
	// Batches, when not nil, runs each stage in waves over provider batches (see RunStream).
	Batches Batches
	// NoWait ends a stage after its first wave that left units pending, with a *PendingError,
	// instead of waiting for the batches (backfill run --no-wait).
	NoWait bool
	// Observer, when not nil, watches the units (telemetry).
	Observer Observer
}

// Logger is the env's logger, or the default one.
func (e Env) Logger() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.Default()
}

// ErrInterrupted is returned by a stage that drained after Env.Stop was closed.
var ErrInterrupted = errors.New("interrupted")

// Stopped reports whether Stop has been closed.
func (e Env) Stopped() bool { return Closed(e.Stop) }

// Closed reports whether a stop channel has been closed (a nil channel never is).
func Closed(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// RecordTimeOf is the record time of an episode under the env's record-time mode.
func (e Env) RecordTimeOf(ep graph.Episode) time.Time {
	if e.RecordTime == RecordReference {
		return ep.ReferenceTime.UTC()
	}
	return ep.IngestedAt.UTC()
}

// Stats is what a stage reports: its line of the run report (report.Stats).
type Stats = report.Stats

// Fingerprint hashes the parts that determine a unit's output.
func Fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
