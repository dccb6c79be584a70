package jobs

import "github.com/tkgraph/backfill/llm/pacing"

// Job is a job spec as written in YAML. Every key is documented in README.md ("Job spec").
type Job struct {
	Name       string    `yaml:"name"`
	Checkpoint string    `yaml:"checkpoint"`  // store path or s3://BUCKET/KEY (default .backfill/<name>.db)
	Timezone   string    `yaml:"timezone"`    // zone of naive timestamps (default UTC)
	RecordTime string    `yaml:"record_time"` // ingest (default) | reference
	Sources    []Source  `yaml:"sources"`
	LLM        LLM       `yaml:"llm"`
	Embedder   Embedder  `yaml:"embedder"`
	Ontology   Ontology  `yaml:"ontology"`
	Stages     StageOpts `yaml:"stages"`
	Sink       Sink      `yaml:"sink"`
	S3         S3        `yaml:"s3"`
	Limits     Limits    `yaml:"limits"`

	// CheckpointSync configures a checkpoint kept in object storage (OpenCheckpoint).
	CheckpointSync CheckpointSync `yaml:"checkpoint_sync"`
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

// Ontology holds custom entity and edge types.
type Ontology struct {
	EntityTypes []EntityType `yaml:"entity_types"`
	EdgeTypes   []EdgeType   `yaml:"edge_types"`
	// ExcludedTypes are entity types never extracted ("Entity" excludes untyped entities).
	ExcludedTypes []string `yaml:"excluded_types"`
}

// EntityType is a custom entity type.
type EntityType struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Attributes  []string `yaml:"attributes"`
}

// EdgeType is a custom fact type.
type EdgeType struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Sources     []string `yaml:"sources"`
	Targets     []string `yaml:"targets"`
	// Cardinality per source entity: one | many (default: temporal.DefaultCardinalities for
	// the name, else many). Used by the temporal stage only.
	Cardinality string `yaml:"cardinality"`
}

// StageOpts holds per-stage options.
type StageOpts struct {
	Extract struct {
		Context       int    `yaml:"context"`        // previous episodes shown (default 4)
		ContextTokens int    `yaml:"context_tokens"` // their content's tokens, at most (default 120)
		Mode          string `yaml:"mode"`           // combined (default) | two_call
		Chitchat      string `yaml:"chitchat"`       // skip (default) | ask
		LLM           string `yaml:"llm"`            // on (default) | off: declared facts only, no LLM call
		// Window: messages and texts extracted in windows of this many episodes on average, one
		// call each (default 1: one call per episode); WindowTokens bounds a window's content
		// (default 1000); WindowGapSeconds of silence start a new window (default 3600).
		Window           int     `yaml:"window"`
		WindowTokens     int     `yaml:"window_tokens"`
		WindowGapSeconds float64 `yaml:"window_gap_seconds"`
	} `yaml:"extract"`
	Resolve struct {
		MinHashThreshold   float64 `yaml:"minhash_threshold"`   // default 0.9
		EmbeddingThreshold float64 `yaml:"embedding_threshold"` // default 0.92
		GreyThreshold      float64 `yaml:"grey_threshold"`      // default 0.8
		BatchSize          int     `yaml:"batch_size"`          // pairs per LLM call (default 20)
		MaxPairs           int     `yaml:"max_pairs"`           // pairs adjudicated per group (default 1000)
		LLM                string  `yaml:"llm"`                 // on (default) | off
	} `yaml:"resolve"`
	Temporal struct {
		MaxCandidates int `yaml:"max_candidates"` // default 20
	} `yaml:"temporal"`
	Summarize struct {
		ShortChars int `yaml:"short_chars"` // default 300
		BatchSize  int `yaml:"batch_size"`  // default 8
	} `yaml:"summarize"`
	Community struct {
		MaxIterations int  `yaml:"max_iterations"` // default 100
		MinSize       int  `yaml:"min_size"`       // default 2
		OnlyValid     bool `yaml:"only_valid"`     // count only facts with no invalid_at/expired_at
		MaxSummarized int  `yaml:"max_summarized"` // members whose summaries are merged (default 16)
	} `yaml:"community"`
}

// Sink says where the graph goes.
type Sink struct {
	Kind        string  `yaml:"kind"`          // sqlite (default: the checkpoint store) | memgraph | neo4j | falkordb
	URI         string  `yaml:"uri"`           // bolt://host:port (default bolt://127.0.0.1:7687); falkordb: redis:// or rediss:// (default redis://127.0.0.1:6379)
	Database    string  `yaml:"database"`      // database name (default: the server's default); falkordb: none (each group is the graph of its name)
	UsernameEnv string  `yaml:"username_env"`  // variable holding the user (default BACKFILL_SINK_USERNAME; unset: no auth)
	PasswordEnv string  `yaml:"password_env"`  // variable holding the password (default BACKFILL_SINK_PASSWORD)
	BatchSize   int     `yaml:"batch_size"`    // most rows per UNWIND transaction (default 2000)
	BatchBytes  int     `yaml:"batch_bytes"`   // most bytes of rows per UNWIND transaction (default 2 MiB; 8 MiB on neo4j with indexes graphiti, the default, or background)
	Sessions    int     `yaml:"sessions"`      // groups loaded at once, one session each (default 2)
	Analytical  bool    `yaml:"analytical"`    // memgraph only: one-off migration in IN_MEMORY_ANALYTICAL mode
	Indexes     string  `yaml:"indexes"`       // neo4j: graphiti (default: Load returns with Graphiti's indexes online, the vector indexes populating) | online (every index online) | background (only the lookup indexes)
	Reload      bool    `yaml:"reload"`        // write every group, not only those that changed since the last load
	MaxAttempts int     `yaml:"max_attempts"`  // tries per transaction on transient errors (default 10)
	RetrySecs   float64 `yaml:"retry_seconds"` // first backoff, doubled per try up to 10 s (default 0.2)

	// Sharing the graph with other writers (README, Living graphs).
	Foreign   string   `yaml:"foreign"`            // keep (default: never delete or overwrite what another writer wrote) | delete (the loaded groups become what backfill writes)
	LeaseSecs float64  `yaml:"lease_seconds"`      // a group's lease in the database lasts this long unrenewed (default 120, at least 3)
	LeaseWait *float64 `yaml:"lease_wait_seconds"` // wait this long for groups another load holds, then fail naming it (default 60; 0: fail at once)
}

// S3 configures the client for s3:// source paths and checkpoints; credentials come from the standard AWS chain
// (environment, shared files with profile, SSO, web identity, container and instance roles).
type S3 struct {
	Endpoint  string `yaml:"endpoint"`   // endpoint URL of an S3-compatible store, e.g. http://127.0.0.1:7070
	Region    string `yaml:"region"`     // default: the configured region, else us-east-1
	PathStyle bool   `yaml:"path_style"` // address buckets as endpoint/bucket/key
	Profile   string `yaml:"profile"`    // shared config profile (default AWS_PROFILE or "default")
}

// CheckpointSync configures a checkpoint kept in object storage (checkpoint: s3://BUCKET/KEY;
// package checkpoints/replica): the local copy runs work on and how it is kept in the bucket.
type CheckpointSync struct {
	Local        string  `yaml:"local"`         // the local copy (default: under the user cache, DefaultLocalCopy)
	Seconds      float64 `yaml:"seconds"`       // a snapshot at least this often while the store changes (default 300)
	LeaseSeconds float64 `yaml:"lease_seconds"` // the writer's lease lasts this long unrenewed (default 60, at least 3)
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
