package pipeline

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/embed"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/stages/load"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/summarize"
	"github.com/tkgraph/backfill/stages/temporal"
)

// Inputs are what the stages read besides the job and their Env.
type Inputs struct {
	FS    loaders.FS         // where ingest reads the sources
	Shard ingest.Shard       // the groups ingest keeps
	Store *checkpoints.Store // the store load reads the graph from (nil when nothing loads)
	Env   jobs.LookupEnv     // where load reads the sink credentials
}

// Stages returns the job's stages in run order (stages.Steps), each with its options: ingest,
// extract, resolve, temporal, summarize, embed, community, and load when the sink is a graph
// database. It is the one place where the job's keys become the stages' options.
func Stages(j *jobs.Job, in Inputs) ([]stages.Stage, error) {
	io, err := ingestOptions(j, in.FS, in.Shard)
	if err != nil {
		return nil, err
	}
	list := []stages.Stage{
		ingest.New(io),
		extract.New(extractOptions(j)),
		resolve.New(resolveOptions(j)),
		temporal.New(temporal.Options{MaxCandidates: j.Stages.Temporal.MaxCandidates, Cardinality: cardinalities(j)}),
		summarize.New(summarize.Options{ShortChars: j.Stages.Summarize.ShortChars, BatchSize: j.Stages.Summarize.BatchSize}),
		embed.New(),
		community.New(communityOptions(j)),
	}
	if j.GraphSink() {
		list = append(list, load.New(loadOptions(j, in.Store, in.Env)))
	}
	return list, nil
}

// ingestOptions are the ingest stage's options of the job: its sources' loader specs, read from
// fsys, the groups of shard.
func ingestOptions(j *jobs.Job, fsys loaders.FS, shard ingest.Shard) (ingest.Options, error) {
	o := ingest.Options{FS: fsys, Shard: shard, MaxErrorRatio: *j.Limits.MaxErrorRatio, MaxVanishedRatio: *j.Limits.MaxVanishedRatio}
	for i, src := range j.Sources {
		o.Mirror = append(o.Mirror, src.Sync == jobs.SyncMirror)
		spec := j.LoaderSpec(src)
		var err error
		if spec.Record, err = src.RecordSpec(); err != nil {
			return o, fmt.Errorf("ingesting source %d (%s): %w", i, src.Path, err)
		}
		o.Sources = append(o.Sources, spec)
	}
	return o, nil
}

// extractOptions are the extract stage's options of the job.
func extractOptions(j *jobs.Job) extract.Options {
	x := j.Stages.Extract
	return extract.Options{Context: x.Context, ContextTokens: x.ContextTokens, Mode: x.Mode, AskChitchat: x.Chitchat == "ask",
		EntityTypes: entityTypes(j), EdgeTypes: edgeTypes(j), ExcludedTypes: j.Ontology.ExcludedTypes, NoLLM: x.LLM == "off",
		Window: x.Window, WindowTokens: x.WindowTokens, WindowGap: time.Duration(x.WindowGapSeconds * float64(time.Second))}
}

func resolveOptions(j *jobs.Job) resolve.Options {
	r := j.Stages.Resolve
	return resolve.Options{MinHashThreshold: r.MinHashThreshold, EmbeddingThreshold: r.EmbeddingThreshold,
		GreyThreshold: r.GreyThreshold, BatchSize: r.BatchSize, MaxPairs: r.MaxPairs, NoLLM: r.LLM == "off",
		EntityTypes: entityTypes(j), EdgeTypes: edgeTypes(j), ExcludedTypes: j.Ontology.ExcludedTypes}
}

func communityOptions(j *jobs.Job) community.StageOptions {
	c := j.Stages.Community
	return community.StageOptions{MaxIterations: c.MaxIterations, MinSize: c.MinSize, OnlyValid: c.OnlyValid,
		MaxSummarized: c.MaxSummarized}
}

// loadOptions are the load stage's options of the job: the sink keys (0 leaves the sink's own
// default), the credentials read from env when a group is to be loaded, the store as the sink
// reads it.
func loadOptions(j *jobs.Job, store *checkpoints.Store, env jobs.LookupEnv) load.Options {
	s := j.Sink
	return load.Options{
		Sink: graphdb.Options{Dialect: cypher.Dialect(s.Kind), URI: s.URI, Database: s.Database, BatchSize: s.BatchSize,
			BatchBytes: s.BatchBytes, Sessions: s.Sessions, Analytical: s.Analytical, VectorDims: j.Embedder.Dimensions,
			Indexes: cypher.IndexMode(s.Indexes),
			Foreign: graphdb.Foreign(s.Foreign), Job: j.Name,
			LeaseTTL: seconds(s.LeaseSecs), LeaseWait: leaseWait(s.LeaseWait),
			MaxAttempts: s.MaxAttempts, RetryBase: seconds(s.RetrySecs)},
		Reload:      s.Reload,
		Source:      stages.GraphSource(store, j.RecordTime),
		Credentials: func() (string, string, error) { return j.SinkCredentials(env) },
	}
}

func entityTypes(j *jobs.Job) []wire.EntityTypeIn {
	var out []wire.EntityTypeIn
	for _, t := range j.Ontology.EntityTypes {
		out = append(out, wire.EntityTypeIn{Name: t.Name, Description: t.Description, Attributes: t.Attributes})
	}
	return out
}

func edgeTypes(j *jobs.Job) []wire.EdgeTypeIn {
	var out []wire.EdgeTypeIn
	for _, t := range j.Ontology.EdgeTypes {
		out = append(out, wire.EdgeTypeIn{Name: t.Name, Description: t.Description, Sources: t.Sources, Targets: t.Targets})
	}
	return out
}

// cardinalities are the cardinalities the ontology's edge types set, by name.
func cardinalities(j *jobs.Job) map[string]string {
	out := map[string]string{}
	for _, t := range j.Ontology.EdgeTypes {
		if t.Cardinality != "" {
			out[t.Name] = t.Cardinality
		}
	}
	return out
}

// leaseWait is sink.lease_wait_seconds as the loader takes it: unset is its default, 0 fails at
// once (a negative wait).
func leaseWait(s *float64) time.Duration {
	switch {
	case s == nil:
		return 0
	case *s == 0:
		return -1
	}
	return seconds(*s)
}
