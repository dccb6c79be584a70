package jobs

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/stages/temporal"
)

// Report is the run report (DESIGN §8), written as JSON by --report and as a table on stdout.
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
	Records       *ingest.Records   `json:"records,omitempty"`        // JSON records read (absent when none)
	// FailedUnits counts the units recorded as failed in the store after the run (see
	// FailedFile): they run again on the next run. EpisodesWithoutExtraction are those of the
	// extract stage: downstream, their episodes count as having no extraction.
	FailedUnits               int                     `json:"failed_units"`
	EpisodesWithoutExtraction int                     `json:"episodes_without_extraction"`
	Stages                    map[string]stages.Stats `json:"stages"`
	// ExtractUnits counts the extract units this run ran by how they were planned: "asked" (the
	// LLM was asked), or why not (extract.Skip…: "chitchat", "covered", "llm_off").
	ExtractUnits map[string]int       `json:"extract_units,omitempty"`
	LLM          LLMReport            `json:"llm"`
	LLMByStage   map[string]LLMReport `json:"llm_by_stage"`
	Seconds      float64              `json:"seconds"`

	// Load is what the memgraph, neo4j or falkordb sink wrote this run (absent when it had nothing to do).
	Load *graphdb.Result `json:"load,omitempty"`

	// Temporal is what the temporal stage decided over the store's groups: judge calls made and
	// saved by the cardinality rule, contradictions by cardinality and by the judge, and the
	// judge's closures rejected by reason (absent before the stage ran).
	Temporal *temporal.Counts `json:"temporal,omitempty"`

	// CommunitiesByGroup counts communities per group (groups with none are left out); the LLM
	// calls spent on them are llm_by_stage["community"].
	CommunitiesByGroup map[string]int `json:"communities_by_group,omitempty"`

	// Batch is what the run did with provider batches (batch mode only).
	Batch *BatchReport `json:"batch,omitempty"`

	// Forgotten counts the input rows skipped because a deletion forgot them (backfill forget:
	// their episodes, or a bad row whose quarantined text it removed); Vanished the episodes forgotten because their rows vanished from a
	// mirror source; Purged what the run completed of the forgetting of groups (forget.go).
	Forgotten int                 `json:"forgotten"`
	Vanished  int                 `json:"vanished,omitempty"`
	Purged    *checkpoints.Purged `json:"purged,omitempty"`

	pendingStage string // the stage a --no-wait run stopped at
}

// Pending reports whether the run stopped with units waiting for provider batches (--no-wait):
// it ended without error, and running again continues.
func (r *Report) Pending() bool { return r.Batch != nil && r.Batch.PendingStage != "" }

// MaxMappedShown bounds Report.MappedGroups.
const MaxMappedShown = 100

// LLMReport counts LLM and embedding calls.
type LLMReport struct {
	Calls        int `json:"calls"`
	CacheHits    int `json:"cache_hits"`
	PromptTokens int `json:"prompt_tokens"`
	// CachedPromptTokens are the prompt tokens the provider served from its prompt cache (its
	// usage.prompt_tokens_details.cached_tokens), part of PromptTokens.
	CachedPromptTokens int     `json:"cached_prompt_tokens"`
	CompletionTokens   int     `json:"completion_tokens"`
	ReasoningTokens    int     `json:"reasoning_tokens"`
	CostUSD            float64 `json:"cost_usd"`
	Retries            int     `json:"retries"`
	MaxInFlight        int     `json:"max_in_flight"`
	InvalidAnswers     int     `json:"invalid_answers"` // answers that failed the schema (each retried, or failing its call)
	Truncated          int     `json:"truncated"`       // answers cut at max_tokens (finish_reason "length")
	Salvaged           int     `json:"salvaged"`        // cut answers kept up to their last complete list item (llm.Client.Call)
	// AnswersRepaired counts the repairs the answer hygiene made, by kind (extract.Repair…).
	AnswersRepaired map[string]int `json:"answers_repaired,omitempty"`
}

// StageOrder is the order stages run in.
var StageOrder = stages.StepNames()

// WriteTable prints the report as a human-readable summary.
func (r *Report) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "job\t%s %s\n", r.Job, r.Shard)
	fmt.Fprintf(tw, "episodes\t%d\n", r.Episodes)
	fmt.Fprintf(tw, "entities\t%d\n", r.Entities)
	fmt.Fprintf(tw, "facts\t%d\n", r.Facts)
	fmt.Fprintf(tw, "facts_invalidated\t%d\n", r.FactsInvalidated)
	fmt.Fprintf(tw, "communities\t%d\n", r.Communities)
	fmt.Fprintf(tw, "quarantined\t%d\n", r.Quarantined)
	if r.FailedUnits > 0 {
		fmt.Fprintf(tw, "failed units\t%d (%d episodes without extraction)\n", r.FailedUnits, r.EpisodesWithoutExtraction)
	}
	if r.EpisodesReplaced > 0 {
		fmt.Fprintf(tw, "episodes_replaced\t%d\n", r.EpisodesReplaced)
	}
	r.writeForgetting(tw)
	if rc := r.Records; rc != nil {
		fmt.Fprintf(tw, "json records\t%d (%d pruned): ~%d tokens per record before pruning, ~%d after\n", rc.Records, rc.Pruned,
			rc.TokensBefore/rc.Records, rc.TokensAfter/rc.Records)
		if m := rc.Missing(); m != "" {
			fmt.Fprintf(tw, "declared facts\t%s: they state nothing about it\n", m)
		}
	}
	if r.GroupsMapped > 0 {
		fmt.Fprintf(tw, "groups_mapped\t%d (ids outside [A-Za-z0-9_-] rewritten; status --group ID shows both forms)\n", r.GroupsMapped)
	}
	fmt.Fprintf(tw, "\nstage\tunits\tskipped\tfailed\tseconds\tllm calls\tcache hits\ttokens in\ttokens out\n")
	names := append([]string(nil), StageOrder...)
	for s := range r.Stages {
		if !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	sort.SliceStable(names[len(StageOrder):], func(i, j int) bool { return names[len(StageOrder)+i] < names[len(StageOrder)+j] })
	for _, s := range names {
		st, ok := r.Stages[s]
		if !ok {
			continue
		}
		u := r.LLMByStage[s]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f\t%d\t%d\t%d\t%d\n", s, st.Units, st.Skipped, st.Failed, st.Seconds, u.Calls, u.CacheHits, u.PromptTokens, u.CompletionTokens)
	}
	if ld := r.Load; ld != nil {
		fmt.Fprintf(tw, "\nload\t%d groups: %d nodes, %d relationships in %d batches; %d stale removed, %d labels removed, %d retries\n",
			ld.Groups, ld.Nodes, ld.Edges, ld.Batches, ld.Deleted, ld.LabelsRemoved, ld.Retries)
		fmt.Fprintf(tw, "indexes\t%.2f s after the last write", ld.SchemaSeconds)
		if len(ld.IndexesPopulating) > 0 {
			fmt.Fprintf(tw, "; still populating in the background: %s (SHOW INDEXES shows their progress)", strings.Join(ld.IndexesPopulating, ", "))
		}
		fmt.Fprintln(tw)
	}
	if len(r.ExtractUnits) > 0 {
		not := maps.Clone(r.ExtractUnits)
		delete(not, extract.Asked)
		fmt.Fprintf(tw, "\nextract\t%d episodes asked the LLM; not asked:%s\n", r.ExtractUnits[extract.Asked], kinds(not))
	}
	l := r.LLM
	fmt.Fprintf(tw, "\nllm\tcalls %d, cache hits %d, tokens %d in (%d cached by the provider) / %d out, retries %d, max in flight %d, cost $%.4f\n",
		l.Calls, l.CacheHits, l.PromptTokens, l.CachedPromptTokens, l.CompletionTokens, l.Retries, l.MaxInFlight, l.CostUSD)
	if l.InvalidAnswers > 0 || l.Truncated > 0 || len(l.AnswersRepaired) > 0 {
		fmt.Fprintf(tw, "answers\t%d invalid, %d cut at max_tokens (%d kept up to their last complete item); repaired:%s\n",
			l.InvalidAnswers, l.Truncated, l.Salvaged, kinds(l.AnswersRepaired))
	}
	if b := r.Batch; b != nil {
		fmt.Fprintf(tw, "batches\t%d submitted (%d requests, %d resubmitted), %d answers, %d error lines, %d unfinished, %d unreadable lines, %d sent online, %d lost; cost $%.4f at batch prices (estimated $%.4f); %d pending\n",
			b.Batches, b.Requests, b.Resubmitted, b.Answers, b.Errors, b.Unfinished, b.InvalidLines, b.FallbackOnline, b.Lost, b.CostUSD, b.EstimatedUSD, b.Pending)
		for _, f := range b.Failures {
			fmt.Fprintf(tw, "batch %s\t%s (%s): %s\n", f.State, f.Batch, f.ProviderID, f.Reason)
		}
	}
	if t := r.Temporal; t != nil {
		fmt.Fprintf(tw, "temporal\t%d facts judged, %d judge calls saved by cardinality; contradictions: %d by cardinality, %d judged; closures rejected %d:%s\n",
			t.Judged, t.JudgeCallsSaved, t.ByCardinality, t.JudgedApplied, t.Rejected(), kinds(t.ClosuresRejected))
	}
	fmt.Fprintf(tw, "seconds\t%.2f\n", r.Seconds)
	tw.Flush()
}

// kinds writes counts by kind as " kind n, kind n" in kind order, or " none".
func kinds(m map[string]int) string {
	if len(m) == 0 {
		return " none"
	}
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s %d", k, m[k])
	}
	return b.String()
}
