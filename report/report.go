package report

// Report is the run report (docs/reference/commands.md, "The run report"), written as JSON by
// --report and as a table on stdout.
type Report struct {
	// StoreFile is the checkpoint store's file the run worked on (the local copy of one kept in
	// object storage): the quarantine and failed-units files are beside it.
	StoreFile        string `json:"-"`
	Job              string `json:"job"`
	Shard            string `json:"shard,omitempty"`
	Episodes         int    `json:"episodes"`
	Entities         int    `json:"entities"`
	Facts            int    `json:"facts"`
	FactsInvalidated int    `json:"facts_invalidated"`
	Mentions         int    `json:"mentions"`
	Communities      int    `json:"communities"`
	Quarantined      int    `json:"quarantined"`
	// EpisodesReplaced counts input rows that replaced, with other content, an earlier row of
	// the same run with the same record key (the later row wins; see the ingest warnings).
	EpisodesReplaced int `json:"episodes_replaced"`
	// GroupsMapped counts the store's groups whose input id lay outside [A-Za-z0-9_-] and was
	// rewritten (group_policy map); MappedGroups shows the first MaxMappedShown of them, id →
	// the id as the input wrote it.
	GroupsMapped  int               `json:"groups_mapped"`
	MappedGroups  map[string]string `json:"mapped_groups,omitempty"`
	BudgetStopped bool              `json:"budget_stopped,omitempty"` // stopped at limits.max_cost_usd
	// StoppedAt names the first stage that did not finish when the run stopped early
	// (interrupted, stopped at the budget, failed, or left waiting for provider batches with
	// --no-wait): it and the stages after it did not finish, so what the graph counts hold of
	// them is the checkpoint's as earlier runs left it, and their sections that sum the store
	// (Temporal, CommunitiesByGroup) are absent. Empty when every stage finished.
	StoppedAt string   `json:"stopped_at,omitempty"`
	Records   *Records `json:"records,omitempty"` // JSON records read (absent when none)
	// FailedUnits counts the units recorded as failed in the store after the run (the
	// failed-units file lists them): they run again on the next run. EpisodesWithoutExtraction
	// are those of the extract stage: downstream, their episodes count as having no extraction.
	FailedUnits               int              `json:"failed_units"`
	EpisodesWithoutExtraction int              `json:"episodes_without_extraction"`
	Stages                    map[string]Stats `json:"stages"`
	// ExtractUnits counts the extract units this run committed by how they were planned:
	// ExtractAsked (the LLM was asked), or why not ("chitchat", "covered", "llm_off").
	ExtractUnits map[string]int `json:"extract_units,omitempty"`
	// ExtractWindows counts the windows whose call this run committed (stages.extract.window
	// above 1): the episodes they held are counted in ExtractUnits.
	ExtractWindows int `json:"extract_windows,omitempty"`
	// ExtractWaiting counts the extract units left waiting for a provider batch (--no-wait):
	// their requests are sent, their answers not in yet; running again commits them.
	ExtractWaiting int            `json:"extract_waiting,omitempty"`
	LLM            LLM            `json:"llm"`
	LLMByStage     map[string]LLM `json:"llm_by_stage"`
	Seconds        float64        `json:"seconds"`

	// Build is what the run built the graph with: the models, the prompts and the settings
	// their answers depend on (status shows the last complete run's).
	Build *Build `json:"build,omitempty"`
	// Error is why the run failed (absent when it did not; status shows the last run's).
	Error string `json:"error,omitempty"`

	// Load is what the graph-database sink wrote this run (absent when it had nothing to do).
	Load *Load `json:"load,omitempty"`

	// Temporal is what the temporal stage decided over the store's groups: judge calls made and
	// saved by the cardinality rule, contradictions by cardinality and by the judge, and the
	// judge's closures rejected by reason (absent before the stage ran, and when it did not
	// finish in this run: StoppedAt).
	Temporal *Temporal `json:"temporal,omitempty"`

	// CommunitiesByGroup counts communities per group (groups with none are left out); the LLM
	// calls spent on them are llm_by_stage["community"].
	CommunitiesByGroup map[string]int `json:"communities_by_group,omitempty"`

	// Batch is what the run did with provider batches (batch mode only).
	Batch *Batch `json:"batch,omitempty"`

	// Forgotten counts the input rows skipped because a deletion forgot them (backfill forget:
	// their episodes, or a bad row whose quarantined text it removed); Vanished the episodes
	// forgotten because their rows vanished from a mirror source; Purged what the run completed
	// of the forgetting of groups (jobs/runner, forget.go).
	Forgotten int     `json:"forgotten"`
	Vanished  int     `json:"vanished,omitempty"`
	Purged    *Purged `json:"purged,omitempty"`
}

// Build is what a run built the graph with.
type Build struct {
	Provider          string  `json:"provider"` // llm.provider
	Model             string  `json:"model"`
	Temperature       float64 `json:"temperature"`
	ResponseFormat    string  `json:"response_format"`
	Mode              string  `json:"mode"`         // llm.mode
	Prompts           string  `json:"prompts"`      // the prompt set's version (wire.Prompts.Version)
	PromptsDir        string  `json:"prompts_dir"`  // llm.prompts_dir ("": the built-in prompts)
	ExtractMode       string  `json:"extract_mode"` // stages.extract.mode
	EmbeddingProvider string  `json:"embedding_provider"`
	EmbeddingModel    string  `json:"embedding_model"`
	Dimensions        int     `json:"dimensions"`
}

// Pending reports whether the run stopped with units waiting for provider batches (--no-wait):
// it ended without error, and running again continues.
func (r *Report) Pending() bool { return r.Batch != nil && r.Batch.PendingStage != "" }

// Finished reports whether stage ran to its end in this run: it ran, and the run did not stop
// in it (StoppedAt).
func (r *Report) Finished(stage string) bool {
	_, ran := r.Stages[stage]
	return ran && r.StoppedAt != stage
}

// MaxMappedShown bounds Report.MappedGroups.
const MaxMappedShown = 100

// ExtractAsked is the ExtractUnits kind of the units that asked the LLM.
const ExtractAsked = "asked"

// Stats is what a stage reports. Units counts the units this run committed (done or failed):
// a unit a drain left uncommitted, or one left waiting for a provider batch, is not counted.
type Stats struct {
	Units   int     `json:"units"`
	Skipped int     `json:"skipped"`
	Failed  int     `json:"failed"` // of Units, committed as failed (stages.Failure)
	Seconds float64 `json:"seconds"`
	// Waves counts the passes over the stage's units in batch mode (absent online); Pending
	// the units left waiting for a batch when the stage ended early (--no-wait).
	Waves   int `json:"waves,omitempty"`
	Pending int `json:"pending,omitempty"`
}

// LLM counts LLM and embedding calls.
type LLM struct {
	Calls        int `json:"calls"`
	CacheHits    int `json:"cache_hits"`
	PromptTokens int `json:"prompt_tokens"`
	// CachedPromptTokens are the prompt tokens the provider served from its prompt cache (its
	// usage.prompt_tokens_details.cached_tokens), part of PromptTokens.
	CachedPromptTokens int     `json:"cached_prompt_tokens"`
	CompletionTokens   int     `json:"completion_tokens"`
	ReasoningTokens    int     `json:"reasoning_tokens"`
	CostUSD            float64 `json:"cost_usd"`
	// InputUSD, CachedInputUSD and OutputUSD are CostUSD by kind of token: prompt tokens at the
	// input price, those the provider served from its prompt cache at the cached input price,
	// completion tokens at the output price (the model's llm.prices entry).
	InputUSD       float64 `json:"input_usd"`
	CachedInputUSD float64 `json:"cached_input_usd"`
	OutputUSD      float64 `json:"output_usd"`
	Retries        int     `json:"retries"`
	MaxInFlight    int     `json:"max_in_flight"`
	InvalidAnswers int     `json:"invalid_answers"` // answers that failed the schema (each retried, or failing its call)
	Truncated      int     `json:"truncated"`       // answers cut at max_tokens (finish_reason "length")
	Salvaged       int     `json:"salvaged"`        // cut answers kept up to their last complete list item (llm.Client.Call)
	// AnswersRepaired counts the repairs the answer hygiene made, by kind (extract.Repair…).
	AnswersRepaired map[string]int `json:"answers_repaired,omitempty"`
}
