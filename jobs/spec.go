package jobs

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/llm/pacing"
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

// LLM configures the chat model.
type LLM struct {
	Provider    string  `yaml:"provider"` // offline (default) | openai
	BaseURL     string  `yaml:"base_url"`
	Model       string  `yaml:"model"`
	APIKeyEnv   string  `yaml:"api_key_env"` // environment variable holding the key (default OPENAI_API_KEY)
	Concurrency int     `yaml:"concurrency"` // LLM requests in flight at once, chat and embeddings together (pacing.DefaultConcurrency); see llm/pacing/doc.go
	RPM         int     `yaml:"rpm"`
	TPM         int     `yaml:"tpm"`
	Temperature float64 `yaml:"temperature"`
	// FrequencyPenalty is the requests' frequency_penalty (0, the default, sends none).
	FrequencyPenalty float64 `yaml:"frequency_penalty"`
	MaxAttempts      int     `yaml:"max_attempts"`    // attempts per call (default 4)
	TimeoutSecs      float64 `yaml:"timeout_seconds"` // per attempt; fractions allowed
	Cache            string  `yaml:"cache"`           // on (default) | off
	PromptsDir       string  `yaml:"prompts_dir"`
	// ResponseFormat is how requests ask for structured output: json_schema (default) |
	// json_object_schema (llama.cpp) | json_object (wire.Formats).
	ResponseFormat string `yaml:"response_format"`
	// MaxTokens overrides the max_tokens of the tasks it names (default: sized per request from
	// the task and its input, llm.Client.MaxTokens).
	MaxTokens map[string]int `yaml:"max_tokens"`
	// Prices add to or replace pacing.DefaultPrices, by model name (chat and embedding models).
	Prices map[string]pacing.Price `yaml:"prices"`
	// Mode is how requests are sent: online (default) or batch (the provider's batch API at
	// its batch price; see BatchOpts).
	Mode  string    `yaml:"mode"`
	Batch BatchOpts `yaml:"batch"`
}

// BatchOpts configure provider batches (llm.mode or embedder.mode batch).
type BatchOpts struct {
	MaxRequests int   `yaml:"max_requests"` // request lines per batch (default 50,000)
	MaxBytes    int64 `yaml:"max_bytes"`    // bytes per input file (default 200,000,000)
	// MaxRetries is how often one run submits a request again after it failed, was left undone
	// by an expired or cancelled batch, or (embeddings) came back unreadable (default 2).
	MaxRetries     *int    `yaml:"max_retries"`
	FallbackOnline bool    `yaml:"fallback_online"` // then send it online instead of failing the call
	PollSeconds    float64 `yaml:"poll_seconds"`    // how often an open batch is polled (default 30)
}

// Embedder configures the embedding model.
type Embedder struct {
	Provider   string `yaml:"provider"` // offline (default) | openai
	BaseURL    string `yaml:"base_url"`
	Model      string `yaml:"model"`
	APIKeyEnv  string `yaml:"api_key_env"`
	Dimensions int    `yaml:"dimensions"` // default 256
	BatchSize  int    `yaml:"batch_size"` // texts per request (default 256)
	Mode       string `yaml:"mode"`       // online (default) | batch (with llm.batch's settings)
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
