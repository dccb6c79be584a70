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

// Values of sources[].sync.
const (
	SyncAppend = "append" // rows gone from the source stay in the graph (the default)
	SyncMirror = "mirror" // an episode whose row is gone from the source is forgotten
)

// Source is one input of the job.
type Source struct {
	Path         string  `yaml:"path"`
	Format       string  `yaml:"format"` // jsonl | parquet | locomo | longmemeval | "" (by extension)
	Mapping      Mapping `yaml:"mapping"`
	TimeFormat   string  `yaml:"time_format"`
	Source       string  `yaml:"source"` // default episode source: message | text | json
	Description  string  `yaml:"description"`
	GroupPolicy  string  `yaml:"group_policy"` // map (default) | reject
	DefaultGroup string  `yaml:"default_group"`
	MaxBodyBytes int     `yaml:"max_body_bytes"`
	// JSON prunes JSON records and names their free-text fields; Facts declares facts that
	// follow from fields alone (see records.go).
	JSON  JSONOpts   `yaml:"json"`
	Facts []FactDecl `yaml:"facts"`
	// Sync is append (default: rows gone from the source stay in the graph) or mirror (an
	// episode whose row is gone is forgotten on the next run, within limits.max_vanished_ratio).
	Sync string `yaml:"sync"`
}

// Mapping names the input field of each episode attribute.
type Mapping struct {
	Group         string `yaml:"group"`
	ReferenceTime string `yaml:"reference_time"`
	Speaker       string `yaml:"speaker"`
	Body          string `yaml:"body"`
	Source        string `yaml:"source"`
	Description   string `yaml:"description"`
	RecordKey     string `yaml:"record_key"`
	Name          string `yaml:"name"`
	Object        string `yaml:"object"` // field naming the object a JSON record is a snapshot of
}

// Limits bound a run.
type Limits struct {
	MaxCostUSD    float64  `yaml:"max_cost_usd"`    // spending cap of one run's LLM and embedding requests (0 = none)
	MaxErrorRatio *float64 `yaml:"max_error_ratio"` // quarantined / rows read above which ingest fails (default 0.1; 0: none may be bad)
	// MaxFailedRatio is the share of a stage's units whose LLM answers may stay bad before the
	// run stops, judged once 10 units have run (default 0.5; 0: none may fail).
	MaxFailedRatio *float64 `yaml:"max_failed_ratio"`
	// MaxVanishedRatio is the share of a mirror source's episodes that may vanish from it at once
	// before the run refuses to forget them (default 0.1).
	MaxVanishedRatio *float64 `yaml:"max_vanished_ratio"`
}
