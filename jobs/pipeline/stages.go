package pipeline

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/loaders"
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
// database. Each stage's keys are bound to its options as the stage declares them; this is the
// one place that adds what a stage reads from elsewhere in the job (the ontology, the timezone,
// the sources' record options, the sink and the store).
func Stages(j *Job, in Inputs) ([]stages.Stage, error) {
	io, err := ingestOptions(j, in.FS, in.Shard)
	if err != nil {
		return nil, err
	}
	list := []stages.Stage{
		ingest.New(io),
		extract.New(extractOptions(j)),
		resolve.New(resolveOptions(j)),
		temporal.New(temporalOptions(j)),
		summarize.New(j.Stages.Summarize),
		embed.New(),
		community.New(j.Stages.Community),
	}
	if j.Sink.GraphSink() {
		list = append(list, load.New(loadOptions(j, in.Store, in.Env)))
	}
	return list, nil
}

// ingestOptions are the ingest stage's options of the job: its sources' loader specs (in the
// job's timezone, their JSON record options compiled), read from fsys, the groups of shard.
func ingestOptions(j *Job, fsys loaders.FS, shard ingest.Shard) (ingest.Options, error) {
	o := ingest.Options{FS: fsys, Shard: shard, MaxErrorRatio: *j.Limits.MaxErrorRatio, MaxVanishedRatio: *j.Limits.MaxVanishedRatio}
	for i, src := range j.Sources {
		o.Mirror = append(o.Mirror, src.Sync == ingest.SyncMirror)
		spec := src.Spec
		spec.Timezone = j.Location()
		var err error
		if spec.Record, err = src.RecordSpec(); err != nil {
			return o, fmt.Errorf("ingesting source %d (%s): %w", i, src.Path, err)
		}
		o.Sources = append(o.Sources, spec)
	}
	return o, nil
}

// extractOptions are the extract stage's options of the job: its keys and the ontology.
func extractOptions(j *Job) extract.Options {
	o := j.Stages.Extract
	o.EntityTypes, o.EdgeTypes, o.ExcludedTypes = j.Ontology.EntityTypesIn(), j.Ontology.EdgeTypesIn(), j.Ontology.ExcludedTypes
	return o
}

// resolveOptions are the resolve stage's options of the job: its keys and the ontology.
func resolveOptions(j *Job) resolve.Options {
	o := j.Stages.Resolve
	o.EntityTypes, o.EdgeTypes, o.ExcludedTypes = j.Ontology.EntityTypesIn(), j.Ontology.EdgeTypesIn(), j.Ontology.ExcludedTypes
	return o
}

// temporalOptions are the temporal stage's options of the job: its keys and the ontology's
// cardinalities.
func temporalOptions(j *Job) temporal.Options {
	o := j.Stages.Temporal
	o.Cardinality = j.Ontology.Cardinalities()
	return o
}

// loadOptions are the load stage's options of the job: the sink keys (0 leaves the sink's own
// default), the credentials read from env when a group is to be loaded, the store as the sink
// reads it.
func loadOptions(j *Job, store *checkpoints.Store, env jobs.LookupEnv) load.Options {
	return load.Options{
		Sink:        j.Sink.Options(j.Name, j.Embedder.Dimensions),
		Reload:      j.Sink.Reload,
		Source:      stages.GraphSource(store, j.RecordTime),
		Credentials: func() (string, string, error) { return j.Sink.Credentials(env) },
	}
}

// PingSink connects once to the job's graph database sink, with the credentials the job names
// read from env, and disconnects; nil when the job loads no graph database.
func PingSink(ctx context.Context, j *Job, env jobs.LookupEnv) error {
	if !j.Sink.GraphSink() {
		return nil
	}
	o := j.Sink.Options(j.Name, j.Embedder.Dimensions)
	var err error
	if o.Username, o.Password, err = j.Sink.Credentials(env); err != nil {
		return err
	}
	o.MaxAttempts = 1
	l, err := graphdb.Open(ctx, o)
	if err != nil {
		return err
	}
	return l.Close(ctx)
}
