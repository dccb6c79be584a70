package pipeline

import (
	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/loaders/s3"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/stages/load"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/summarize"
	"github.com/tkgraph/backfill/stages/temporal"
)

// Job is a loaded job: the spec's own keys (jobs.Job: name, timezone, record_time) and the keys
// of every part, each declared by the package that reads it. Declare assembles them: it is the
// one place that knows every part of a job. Load and Parse read a job.
type Job struct {
	jobs.Job
	// Checkpoint is the store's path or s3://BUCKET/KEY (OpenCheckpoint).
	Checkpoint     string
	Sources        []ingest.Source
	LLM            LLM
	Embedder       Embedder
	Ontology       stages.Ontology
	Stages         StageOptions
	Sink           Sink
	S3             s3.Options
	Limits         Limits
	CheckpointSync replica.Sync
}

// StageOptions are the options of the stages a job sets (stages.*), each declared by its stage.
// The parts that come from elsewhere (the ontology, the counters) are added when the stages are
// built (Stages).
type StageOptions struct {
	Extract   extract.Options
	Resolve   resolve.Options
	Temporal  temporal.Options
	Summarize summarize.Options
	Community community.StageOptions
}

// Sink is the job's sink section: the loader's keys (graphdb.Settings) and sink.reload, which
// the load stage reads.
type Sink struct {
	graphdb.Settings
	Reload bool
}

// Limits are the job's limits section: the budget (read by the pacer), the ingest stage's
// ratios and the ratio of failed units that stops a stage.
type Limits struct {
	MaxCostUSD float64
	ingest.Limits
	MaxFailedRatio *float64
}

// Load reads a job file (jobs.Load) into a Job.
func Load(path string, sets []string, env jobs.LookupEnv) (*Job, error) {
	return jobs.Load[Job](path, sets, env)
}

// Parse is Load on the file's bytes.
func Parse(raw []byte, sets []string, env jobs.LookupEnv) (*Job, error) {
	return jobs.Parse[Job](raw, sets, env)
}

// Keys are the keys of a job, as its parts declare them: what the key reference and the help
// text are rendered from.
func Keys() *options.Section {
	root := options.New()
	new(Job).Declare(root)
	return root
}

// Declare declares the keys of a job: the spec's own, then each part's.
func (j *Job) Declare(root *options.Section) {
	j.Job.Declare(root)
	j.declareCheckpoint(root)
	ingest.DeclareSources(root, &j.Sources, j.Ontology.IsEntityType)
	root.Section("llm", "the chat model", j.LLM.declare)
	root.Section("embedder", "the embedding model", func(s *options.Section) { j.Embedder.declare(s, &j.LLM) })
	root.Section("ontology", "custom entity and edge types", j.Ontology.Declare)
	root.Section("stages", "options of the stages", func(s *options.Section) {
		s.Section("extract", "the extract stage", j.Stages.Extract.Declare)
		s.Section("resolve", "the resolve stage", j.Stages.Resolve.Declare)
		s.Section("temporal", "the temporal stage", j.Stages.Temporal.Declare)
		s.Section("summarize", "the summarize stage", j.Stages.Summarize.Declare)
		s.Section("community", "the community stage", j.Stages.Community.Declare)
	})
	root.Section("sink", "where the graph goes", func(s *options.Section) {
		j.Sink.Settings.Declare(s)
		load.DeclareReload(s, &j.Sink.Reload)
	})
	root.Section("s3", "the S3 client of `s3://` sources and checkpoints", j.S3.Declare)
	root.Section("limits", "bounds of a run", func(s *options.Section) {
		pacing.DeclareBudget(s, &j.Limits.MaxCostUSD)
		j.Limits.Limits.Declare(s)
		stages.DeclareMaxFailedRatio(s, &j.Limits.MaxFailedRatio)
	})
	root.Section("checkpoint_sync", "a checkpoint kept in object storage ([Checkpoints in object storage](docs/scale-out.md#checkpoints-in-object-storage))",
		j.CheckpointSync.Declare)
	root.Check(j.validateModes)
	root.Check(j.validateCost)
}
