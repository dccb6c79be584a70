package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tkgraph/backfill/llm/batchrec"
)

// Records is what ingest read from JSON records (JSON Lines rows with a JSON object body of
// source json), in the run report and the plan.
type Records struct {
	Records      int `json:"records"`       // JSON records read (of the shard's groups)
	Pruned       int `json:"pruned"`        // records whose content pruning shortened
	TokensBefore int `json:"tokens_before"` // estimated tokens of their bodies before pruning
	TokensAfter  int `json:"tokens_after"`  // and after: the content the episodes keep
	// WithoutObject counts records of a source with mapping.object that lack the field: they
	// are extracted as records of no object, with no snapshot to compare with.
	WithoutObject int `json:"without_object,omitempty"`
	// MissingFields counts, per declaration ("sources[0].facts[1]"), the records that lack one
	// of its fields: they state nothing about it, so its earlier facts stay as they were.
	MissingFields map[string]int `json:"missing_fields,omitempty"`
	// SkipLLM (plan only) counts the episodes whose extraction asks the LLM nothing: their
	// changes are covered by declared facts, no free-text field changed, or the LLM is off.
	SkipLLM int `json:"skip_llm"`
}

// Missing describes MissingFields for a summary line ("35 records lack a field of
// sources[0].facts[5]"), "" when no record lacked one.
func (r *Records) Missing() string {
	keys := make([]string, 0, len(r.MissingFields))
	for k := range r.MissingFields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d records lack a field of %s", r.MissingFields[k], k))
	}
	return strings.Join(parts, ", ")
}

// Temporal is what the temporal stage's rules and judge decided for a group, stored as the
// temporal unit's output and summed over the store's groups for the run report.
type Temporal struct {
	// Judged counts the facts sent to the judge (one judge_fact call each, cache hits
	// included); JudgeCallsSaved the facts that had contradiction candidates under the endpoint
	// rule but needed no judgement, every candidate settled by cardinality or excluded by it.
	Judged          int `json:"judged"`
	JudgeCallsSaved int `json:"judge_calls_saved"`
	// ByCardinality counts the contradicting pairs of a relation of cardinality one (no LLM);
	// JudgedApplied the judge's contradictions that passed the checks. A contradicting pair
	// closes a fact only under the time rules (the later-started fact wins; none when a start is
	// unknown or the intervals do not overlap).
	ByCardinality int `json:"contradictions_by_cardinality"`
	JudgedApplied int `json:"contradictions_judged"`
	// ClosuresRejected counts the judge's contradictions not applied, by reason.
	ClosuresRejected map[string]int `json:"closures_rejected,omitempty"`
	// JudgementsFailed counts the judgements whose answer stayed bad (they decide nothing; the
	// group is recorded failed and judged again on the next run).
	JudgementsFailed int `json:"judgements_failed,omitempty"`
}

// Add adds o to c.
func (c *Temporal) Add(o Temporal) {
	c.Judged += o.Judged
	c.JudgeCallsSaved += o.JudgeCallsSaved
	c.ByCardinality += o.ByCardinality
	c.JudgedApplied += o.JudgedApplied
	c.JudgementsFailed += o.JudgementsFailed
	for k, n := range o.ClosuresRejected {
		if c.ClosuresRejected == nil {
			c.ClosuresRejected = map[string]int{}
		}
		c.ClosuresRejected[k] += n
	}
}

// Rejected is the number of rejected closures over all reasons.
func (c Temporal) Rejected() int {
	n := 0
	for _, k := range c.ClosuresRejected {
		n += k
	}
	return n
}

// Load is what the graph-database load wrote, whatever the sink: the field list of the loader's
// result (sinks/graphdb.Result), which converts to it.
type Load struct {
	Groups        int            `json:"groups"`         // groups loaded
	FreshGroups   int            `json:"fresh_groups"`   // of them, groups the database held no node of: written with CREATE
	Nodes         int            `json:"nodes"`          // node rows written
	Edges         int            `json:"edges"`          // relationship rows written
	Deleted       int            `json:"deleted"`        // stale nodes and relationships removed
	LabelsRemoved int            `json:"labels_removed"` // stale entity labels removed
	Batches       int            `json:"batches"`        // write transactions committed
	Retries       int            `json:"retries"`        // transactions tried again after a transient error
	Counts        map[string]int `json:"counts"`         // per label ("Entity", "Entity:Person") and type it wrote, after the load
	// Unchanged are the rows written only where the database lacked them (their data did not
	// change since the last load; what another writer changed on them stays).
	Unchanged int `json:"unchanged"`
	// ForeignKept are the nodes and relationships of the loaded groups that another writer
	// wrote, kept (sink.foreign: keep), per label and type in ForeignKinds.
	ForeignKept  int            `json:"foreign_kept"`
	ForeignKinds map[string]int `json:"foreign_kept_by_kind,omitempty"`
	// OverwrittenOnlineEdits are the elements another writer had changed that the load wrote
	// over because backfill's own data for them changed; OverwrittenSample lists the first uuids.
	OverwrittenOnlineEdits int      `json:"overwritten_online_edits"`
	OverwrittenSample      []string `json:"overwritten_online_edits_sample,omitempty"`
	// OnlineClosuresKept are the facts another writer closed that stay closed although
	// backfill's data for them changed.
	OnlineClosuresKept int `json:"online_closures_kept"`
	// DuplicatesRepaired are the extra copies of uuids removed.
	DuplicatesRepaired int `json:"duplicates_repaired"`
	// ConstraintsMissing are the uuid uniqueness constraints the database lacks after the load,
	// with why.
	ConstraintsMissing []string `json:"constraints_missing,omitempty"`
	// LeaseWaitSeconds is how long the load waited for groups another load held.
	LeaseWaitSeconds float64 `json:"lease_wait_seconds"`
	// SchemaSeconds is the time of the schema after the last write (indexes created, on Neo4j
	// awaited as sink.indexes says); part of Seconds.
	SchemaSeconds float64 `json:"schema_seconds"`
	// IndexesPopulating are the indexes Neo4j was still populating in the background when the
	// load returned (SHOW INDEXES shows their progress).
	IndexesPopulating []string `json:"indexes_populating,omitempty"`
	Seconds           float64  `json:"seconds"`
}

// Purged is what a run completed of the forgetting of groups: the field list of the store's
// purge (checkpoints.Purged), which converts to it.
type Purged struct {
	Groups        []string `json:"-"`              // the groups whose forgetting completed
	Gone          []string `json:"-"`              // of them, those left without episodes
	GroupsDone    int      `json:"groups"`         // len(Groups)
	GroupsEmptied int      `json:"groups_emptied"` // len(Gone)
	CacheRows     int      `json:"cache_rows"`     // cached answers deleted
	BatchRequests int      `json:"batch_requests"` // provider batch request rows deleted with them
}

// Batch is what a run in batch mode did with provider batches (Report.Batch): the batchers'
// usage (batchrec.Usage, the one type of the LLM layer the report holds as is: it is the
// batchers' own count, in a leaf package) and the batches left open.
type Batch struct {
	batchrec.Usage
	// Pending counts the batches of the store that have not ended (or whose answers are not
	// delivered yet) when the run ends; PendingStage names the stage a --no-wait run stopped
	// at, waiting for them.
	Pending      int    `json:"pending"`
	PendingStage string `json:"pending_stage,omitempty"`
}
