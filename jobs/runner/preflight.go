package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/pipeline"
)

// PreflightTimeout bounds the connection Preflight makes to a graph database sink.
const PreflightTimeout = 10 * time.Second

// Preflight lists what a run of j needs from outside the job file and lacks, found before any
// work: the providers' API keys (KeyNeeds), the local input files (SourceNeeds, told where their
// paths came from by the job file at jobFile, when it reads) and, when the job loads a graph
// database, its credentials and one connection to it (within PreflightTimeout). env reads the
// keys, variables and credentials (os.LookupEnv when nil). run refuses to start while the list
// is not empty; plan and status print it.
func Preflight(ctx context.Context, j *pipeline.Job, jobFile string, env jobs.LookupEnv) []jobs.Need {
	if env == nil {
		env = os.LookupEnv
	}
	var origins map[int]jobs.Origin
	if raw, err := os.ReadFile(jobFile); err == nil {
		origins = jobs.SourceOrigins(raw, env)
	}
	needs := append(j.KeyNeeds(env), j.SourceNeeds(ctx, origins)...)
	if j.Sink.GraphSink() {
		ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
		defer cancel()
		if err := pipeline.PingSink(ctx, j, env); err != nil {
			what := fmt.Sprintf("cannot connect to the %s sink: %v (is the database running, at that address?", j.Sink.Kind, err)
			if j.Sink.Kind == "neo4j" || j.Sink.Kind == "falkordb" {
				what += fmt.Sprintf(" scripts/%s.sh start runs one on this machine and prints the flags that point a job at it", j.Sink.Kind)
			}
			needs = append(needs, jobs.Need{Key: "sink.uri", What: what + ")"})
		}
	}
	return needs
}
