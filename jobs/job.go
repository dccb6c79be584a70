package jobs

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/internal/options"
)

// Job is the job's own keys: its name, the zone of naive timestamps and the record-time mode.
// The keys of the parts (sources, llm, stages, sink, …) are declared by the packages that read
// them; jobs/pipeline's Job holds them all.
type Job struct {
	Name       string
	Timezone   string // zone of naive timestamps (default UTC)
	RecordTime string // ingest (default) | reference
}

// Declare declares the job's own keys.
func (j *Job) Declare(root *options.Section) {
	root.String(&j.Name, "name", "job name", options.Default("job"))
	root.String(&j.Timezone, "timezone", "IANA zone of naive timestamps; a naive time the zone skips (a DST gap) is a quarantined row",
		options.Default("UTC"), options.Check(func() error {
			if _, err := time.LoadLocation(j.Timezone); err != nil {
				return fmt.Errorf("unknown zone %q", j.Timezone)
			}
			return nil
		}))
	root.String(&j.RecordTime, "record_time", "`ingest` (record time = wall clock of the first ingest of each episode) or "+
		"`reference` (as if each episode had been ingested at its reference time; use it for evaluation graphs and "+
		"comparable exports)", options.Default("ingest"), options.Words("ingest", "reference"))
}

// Location is the job's timezone.
func (j *Job) Location() *time.Location {
	loc, err := time.LoadLocation(j.Timezone)
	if err != nil {
		return time.UTC
	}
	return loc
}
