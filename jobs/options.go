package jobs

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/stages/load"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/summarize"
	"github.com/tkgraph/backfill/stages/temporal"
)

// The job's keys translated into each stage's Options, one function per stage, used by both the
// run and the plan; the stages own the defaults (their WithDefaults).

// ingestOptions are the ingest stage's options of the job: its sources' loader specs, read from
// fsys, the groups of shard.
func (j *Job) ingestOptions(fsys loaders.FS, shard Shard) (ingest.Options, error) {
	o := ingest.Options{FS: fsys, Shard: shard, MaxErrorRatio: *j.Limits.MaxErrorRatio, MaxVanishedRatio: *j.Limits.MaxVanishedRatio}
	for i, src := range j.Sources {
		o.Mirror = append(o.Mirror, src.Sync == SyncMirror)
		spec := j.loaderSpec(src)
		var err error
		if spec.Record, err = src.recordSpec(); err != nil {
			return o, fmt.Errorf("ingesting source %d (%s): %w", i, src.Path, err)
		}
		o.Sources = append(o.Sources, spec)
	}
	return o, nil
}

// loaderSpec is the loaders.Spec of one of the job's sources.
func (j *Job) loaderSpec(src Source) loaders.Spec {
	return loaders.Spec{Path: src.Path, Format: src.Format, Mapping: loaders.Mapping(src.Mapping), Timezone: j.Location(),
		TimeFormat: src.TimeFormat, Source: src.Source, Description: src.Description, GroupPolicy: src.GroupPolicy,
		DefaultGroup: src.DefaultGroup, MaxBodyBytes: src.MaxBodyBytes}
}

// loadOptions are the load stage's options of the job: the sink keys, the credentials read from
// env when a group is to be loaded, the store as the sink reads it.
func (j *Job) loadOptions(store *checkpoints.Store, env LookupEnv) load.Options {
	s := j.Sink
	return load.Options{
		Sink: graphdb.Options{Dialect: cypher.Dialect(s.Kind), URI: s.URI, Database: s.Database, BatchSize: s.BatchSize,
			BatchBytes: s.BatchBytes, Sessions: s.Sessions, Analytical: s.Analytical, VectorDims: j.Embedder.Dimensions,
			Indexes:     cypher.IndexMode(s.Indexes),
			MaxAttempts: s.MaxAttempts, RetryBase: time.Duration(s.RetrySecs * float64(time.Second))},
		Reload:      s.Reload,
		Source:      GraphSource(j, store),
		Credentials: func() (string, string, error) { return sinkCredentials(s, env) },
	}
}

func (j *Job) resolveOptions() resolve.Options {
	r := j.Stages.Resolve
	return resolve.Options{MinHashThreshold: r.MinHashThreshold, EmbeddingThreshold: r.EmbeddingThreshold,
		GreyThreshold: r.GreyThreshold, BatchSize: r.BatchSize, MaxPairs: r.MaxPairs, NoLLM: r.LLM == "off",
		EntityTypes: j.entityTypes(), EdgeTypes: j.edgeTypes(), ExcludedTypes: j.Ontology.ExcludedTypes}
}

func (j *Job) temporalOptions() temporal.Options {
	return temporal.Options{MaxCandidates: j.Stages.Temporal.MaxCandidates, Cardinality: j.cardinalities()}
}

func (j *Job) summarizeOptions() summarize.Options {
	return summarize.Options{ShortChars: j.Stages.Summarize.ShortChars, BatchSize: j.Stages.Summarize.BatchSize}
}

func (j *Job) communityOptions() community.StageOptions {
	c := j.Stages.Community
	return community.StageOptions{MaxIterations: c.MaxIterations, MinSize: c.MinSize, OnlyValid: c.OnlyValid,
		MaxSummarized: c.MaxSummarized}
}
