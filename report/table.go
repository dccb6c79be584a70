package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report as a human-readable summary, its stages in order (the step
// table's names; stages it does not name follow, sorted).
func (r *Report) WriteTable(w io.Writer, order []string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	r.writeCounts(tw)
	r.writeStages(tw, order)
	r.writeSections(tw)
	fmt.Fprintf(tw, "seconds\t%.2f\n", r.Seconds)
	tw.Flush()
}

// writeCounts prints the graph's counts and what ingest read.
func (r *Report) writeCounts(w io.Writer) {
	fmt.Fprintf(w, "job\t%s %s\n", r.Job, r.Shard)
	if r.StoppedAt != "" {
		fmt.Fprintf(w, "stopped\tin %s: it and the stages after it did not finish; the graph counts below are the checkpoint's, what they hold of those stages left by earlier runs\n",
			r.StoppedAt)
	}
	fmt.Fprintf(w, "episodes\t%d\n", r.Episodes)
	fmt.Fprintf(w, "entities\t%d\n", r.Entities)
	fmt.Fprintf(w, "facts\t%d\n", r.Facts)
	fmt.Fprintf(w, "facts_invalidated\t%d\n", r.FactsInvalidated)
	fmt.Fprintf(w, "communities\t%d\n", r.Communities)
	fmt.Fprintf(w, "quarantined\t%d\n", r.Quarantined)
	if r.FailedUnits > 0 {
		fmt.Fprintf(w, "failed units\t%d (%d episodes without extraction)\n", r.FailedUnits, r.EpisodesWithoutExtraction)
	}
	if r.EpisodesReplaced > 0 {
		fmt.Fprintf(w, "episodes_replaced\t%d\n", r.EpisodesReplaced)
	}
	r.writeForgetting(w)
	if rc := r.Records; rc != nil {
		fmt.Fprintf(w, "json records\t%d (%d pruned): ~%d tokens per record before pruning, ~%d after\n", rc.Records, rc.Pruned,
			rc.TokensBefore/rc.Records, rc.TokensAfter/rc.Records)
		if m := rc.Missing(); m != "" {
			fmt.Fprintf(w, "declared facts\t%s: they state nothing about it\n", m)
		}
	}
	if r.GroupsMapped > 0 {
		fmt.Fprintf(w, "groups_mapped\t%d (ids outside [A-Za-z0-9_-] rewritten; status --group ID shows both forms)\n", r.GroupsMapped)
	}
}

// writeStages prints a line per stage: its units and its LLM usage.
func (r *Report) writeStages(w io.Writer, order []string) {
	fmt.Fprintf(w, "\nstage\tunits\tskipped\tfailed\tseconds\tllm calls\tcache hits\ttokens in\ttokens out\n")
	names := slices.Clone(order)
	var other []string
	for s := range r.Stages {
		if !slices.Contains(names, s) {
			other = append(other, s)
		}
	}
	slices.Sort(other)
	for _, s := range append(names, other...) {
		st, ok := r.Stages[s]
		if !ok {
			continue
		}
		u := r.LLMByStage[s]
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%.2f\t%d\t%d\t%d\t%d\n", s, st.Units, st.Skipped, st.Failed, st.Seconds, u.Calls, u.CacheHits, u.PromptTokens, u.CompletionTokens)
	}
}

// writeSections prints the sections of the stages that have one, the LLM usage and batches.
func (r *Report) writeSections(w io.Writer) {
	if ld := r.Load; ld != nil {
		fmt.Fprintf(w, "\nload\t%d groups: %d nodes, %d relationships in %d batches; %d stale removed, %d labels removed, %d retries\n",
			ld.Groups, ld.Nodes, ld.Edges, ld.Batches, ld.Deleted, ld.LabelsRemoved, ld.Retries)
		if ld.ForeignKept > 0 || ld.OverwrittenOnlineEdits > 0 || ld.OnlineClosuresKept > 0 || ld.DuplicatesRepaired > 0 {
			fmt.Fprintf(w, "shared\t%d unchanged kept as they are, %d foreign kept:%s; %d online edits overwritten by changed data%s; %d online closures kept; %d duplicate copies repaired\n",
				ld.Unchanged, ld.ForeignKept, kinds(ld.ForeignKinds), ld.OverwrittenOnlineEdits, sample(ld.OverwrittenSample), ld.OnlineClosuresKept, ld.DuplicatesRepaired)
		}
		for _, c := range ld.ConstraintsMissing {
			fmt.Fprintf(w, "constraint\tmissing: %s\n", c)
		}
		fmt.Fprintf(w, "indexes\t%.2f s after the last write", ld.SchemaSeconds)
		if len(ld.IndexesPopulating) > 0 {
			fmt.Fprintf(w, "; still populating in the background: %s (SHOW INDEXES shows their progress)", strings.Join(ld.IndexesPopulating, ", "))
		}
		fmt.Fprintln(w)
	}
	if len(r.ExtractUnits) > 0 || r.ExtractWaiting > 0 {
		not := maps.Clone(r.ExtractUnits)
		delete(not, ExtractAsked)
		waiting := ""
		if r.ExtractWaiting > 0 {
			waiting = fmt.Sprintf(" (%d more wait for a provider batch: their requests are sent)", r.ExtractWaiting)
		}
		windows := ""
		if r.ExtractWindows > 0 {
			windows = fmt.Sprintf(" in %d windows", r.ExtractWindows)
		}
		fmt.Fprintf(w, "\nextract\t%d episodes asked the LLM%s%s; not asked:%s\n", r.ExtractUnits[ExtractAsked], windows, waiting, kinds(not))
	}
	l := r.LLM
	fmt.Fprintf(w, "\nllm\tcalls %d, cache hits %d, tokens %d in (%d cached by the provider) / %d out, retries %d, max in flight %d, cost $%.4f ($%.4f input, $%.4f cached input, $%.4f output)\n",
		l.Calls, l.CacheHits, l.PromptTokens, l.CachedPromptTokens, l.CompletionTokens, l.Retries, l.MaxInFlight, l.CostUSD,
		l.InputUSD, l.CachedInputUSD, l.OutputUSD)
	if l.InvalidAnswers > 0 || l.Truncated > 0 || len(l.AnswersRepaired) > 0 {
		fmt.Fprintf(w, "answers\t%d invalid, %d cut at max_tokens (%d kept up to their last complete item); repaired:%s\n",
			l.InvalidAnswers, l.Truncated, l.Salvaged, kinds(l.AnswersRepaired))
	}
	if b := r.Batch; b != nil {
		fmt.Fprintf(w, "batches\t%d submitted (%d requests, %d resubmitted), %d answers, %d error lines, %d unfinished, %d unreadable lines, %d sent online, %d lost; cost $%.4f at batch prices (estimated $%.4f); %d pending\n",
			b.Batches, b.Requests, b.Resubmitted, b.Answers, b.Errors, b.Unfinished, b.InvalidLines, b.FallbackOnline, b.Lost, b.CostUSD, b.EstimatedUSD, b.Pending)
		if b.Discarded > 0 {
			fmt.Fprintf(w, "batches\t%d answers discarded: a forgetting removed their episodes while their batches were pending (paid, never cached)\n", b.Discarded)
		}
		for _, f := range b.Failures {
			fmt.Fprintf(w, "batch %s\t%s (%s): %s\n", f.State, f.Batch, f.ProviderID, f.Reason)
		}
	}
	if t := r.Temporal; t != nil {
		fmt.Fprintf(w, "temporal\t%d facts judged, %d judge calls saved by cardinality; contradictions: %d by cardinality, %d judged; closures rejected %d:%s\n",
			t.Judged, t.JudgeCallsSaved, t.ByCardinality, t.JudgedApplied, t.Rejected(), kinds(t.ClosuresRejected))
	}
}

// writeForgetting prints the report's forgetting lines (none when nothing was forgotten).
func (r *Report) writeForgetting(w io.Writer) {
	if r.Forgotten > 0 {
		fmt.Fprintf(w, "forgotten\t%d rows skipped: a deletion forgot them (remove them from the source)\n", r.Forgotten)
	}
	if r.Vanished > 0 {
		fmt.Fprintf(w, "vanished\t%d episodes forgotten: their rows left a mirror source\n", r.Vanished)
	}
	if p := r.Purged; p != nil {
		fmt.Fprintf(w, "purged\t%d groups computed again without the forgotten episodes (%d emptied); %d cached answers deleted\n",
			len(p.Groups), len(p.Gone), p.CacheRows)
	}
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

// sample writes the first uuids of a list as " (a, b, …)", or "" when there are none.
func sample(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(ids, ", ") + ")"
}
