package graphdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/snapshots"
)

// Summary writes the totals and the LLM usage of both sides as a few lines.
func (r *Report) Summary(w io.Writer) {
	fmt.Fprintf(w, "diff A: %s\n     B: %s\n", r.A, r.B)
	if r.Empty() {
		fmt.Fprintf(w, "  no changes in %d groups\n", r.Groups)
	} else {
		t := r.Totals
		fmt.Fprintf(w, "  %d of %d groups changed\n", r.GroupsChanged, r.Groups)
		if n := r.NoCommonGroup(); n != "" {
			fmt.Fprintf(w, "  %s\n", n)
		}
		fmt.Fprintf(w, "  entities: %d added, %d removed, %d renamed, %d merged, %d split; %d label and %d summary changes\n",
			t.EntitiesAdded, t.EntitiesRemoved, t.EntitiesRenamed, t.EntitiesMerged, t.EntitiesSplit, t.LabelsChanged, t.SummariesChanged)
		fmt.Fprintf(w, "  facts: %d added, %d removed, %d sentences changed; valid_at %d, invalid_at %d, expired_at %d changed; %d newly closed, %d reopened\n",
			t.FactsAdded, t.FactsRemoved, t.SentenceChanged, t.ValidAtChanged, t.InvalidAtChanged, t.ExpiredAtChanged, t.NewlyClosed, t.Reopened)
		fmt.Fprintf(w, "  communities: %d changed, %d added, %d removed\n", t.CommunitiesChanged, t.CommunitiesAdded, t.CommunitiesRemoved)
	}
	fmt.Fprintf(w, "  llm A: %s\n  llm B: %s\n", usageLine(r.UsageA, r.KindA), usageLine(r.UsageB, r.KindB))
	if g := r.Gold; g != nil {
		fmt.Fprintf(w, "  gold: F1 A %.3f, B %.3f (%+.3f, 95%% interval %+.3f … %+.3f); precision %.3f → %.3f, recall %.3f → %.3f\n        %s\n",
			g.A.F1, g.B.F1, g.Change.F1, g.Low.F1, g.High.F1, g.A.Precision, g.B.Precision, g.A.Recall, g.B.Recall, g.Verdict())
	}
	if a, b := temporalOf(r.UsageA), temporalOf(r.UsageB); a != nil || b != nil {
		fmt.Fprintf(w, "  closures rejected A: %s\n                    B: %s\n", rejectedLine(a, r.UsageA, r.KindA),
			rejectedLine(b, r.UsageB, r.KindB))
	}
}

func temporalOf(u *Usage) *report.Temporal {
	if u == nil {
		return nil
	}
	return u.Temporal
}

// rejectedLine is a side's rejected closures by reason, with its judge calls.
func rejectedLine(t *report.Temporal, u *Usage, kind string) string {
	if t == nil && u == nil {
		return noRuns(kind)
	}
	if t == nil {
		return "not recorded"
	}
	var reasons []string
	for _, k := range slices.Sorted(maps.Keys(t.ClosuresRejected)) {
		reasons = append(reasons, fmt.Sprintf("%s %d", k, t.ClosuresRejected[k]))
	}
	return fmt.Sprintf("%d (%s); %d facts judged, %d judge calls saved, contradictions %d by cardinality and %d judged",
		t.Rejected(), orDash(strings.Join(reasons, ", ")), t.Judged, t.JudgeCallsSaved, t.ByCardinality, t.JudgedApplied)
}

// temporalTable writes the temporal counts of both sides and their change, one row per count and
// per rejection reason either side has.
func temporalTable(w io.Writer, a, b *report.Temporal) {
	fmt.Fprintf(w, "\n## Contradictions of the last run of each side\n\n| | A | B | change |\n|---|---:|---:|---:|\n")
	get := func(t *report.Temporal, f func(report.Temporal) int) (string, int) {
		if t == nil {
			return "–", 0
		}
		return fmt.Sprint(f(*t)), f(*t)
	}
	row := func(name string, f func(report.Temporal) int) {
		as, an := get(a, f)
		bs, bn := get(b, f)
		fmt.Fprintf(w, "| %s | %s | %s | %+d |\n", name, as, bs, bn-an)
	}
	row("facts judged", func(t report.Temporal) int { return t.Judged })
	row("judge calls saved by cardinality", func(t report.Temporal) int { return t.JudgeCallsSaved })
	row("contradictions by cardinality", func(t report.Temporal) int { return t.ByCardinality })
	row("contradictions judged", func(t report.Temporal) int { return t.JudgedApplied })
	row("closures rejected", func(t report.Temporal) int { return t.Rejected() })
	reasons := map[string]bool{}
	for _, t := range []*report.Temporal{a, b} {
		if t != nil {
			for k := range t.ClosuresRejected {
				reasons[k] = true
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(reasons)) {
		row("closures rejected: "+k, func(t report.Temporal) int { return t.ClosuresRejected[k] })
	}
}

// noRuns says why a side shows no runs: only a checkpoint's runs table records them.
func noRuns(kind string) string {
	if kind == snapshots.KindCheckpoint {
		return "no runs recorded (a store written before runs were recorded)"
	}
	return "not compared: a " + kind + " records no runs (the checkpoint that built it does)"
}

func usageLine(u *Usage, kind string) string {
	if u == nil {
		return noRuns(kind)
	}
	t, l := u.Total, u.Last
	return fmt.Sprintf("%d runs: %d calls, %d cache hits, %d/%d tokens, $%.4f; last run (%s): %d calls, %d cache hits, %d/%d tokens, $%.4f",
		u.Runs, t.Calls, t.CacheHits, t.PromptTokens, t.CompletionTokens, t.CostUSD, u.LastOutcome, l.Calls, l.CacheHits,
		l.PromptTokens, l.CompletionTokens, l.CostUSD)
}

// Markdown writes the totals, the LLM usage side by side and the most important changes with
// the episode text behind each side.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# backfill diff\n\n- A: %s\n- B: %s\n\n", r.A, r.B)
	t := r.Totals
	fmt.Fprintf(w, "%d of %d groups changed.\n\n", r.GroupsChanged, r.Groups)
	if n := r.NoCommonGroup(); n != "" {
		fmt.Fprintf(w, "%s.\n\n", n)
	}
	fmt.Fprintf(w, "| change | count |\n|---|---:|\n")
	for _, row := range []struct {
		name string
		n    int
	}{
		{"entities added", t.EntitiesAdded}, {"entities removed", t.EntitiesRemoved}, {"entities renamed", t.EntitiesRenamed},
		{"entities merged", t.EntitiesMerged}, {"entities split", t.EntitiesSplit}, {"label changes", t.LabelsChanged},
		{"summary changes", t.SummariesChanged}, {"facts added", t.FactsAdded}, {"facts removed", t.FactsRemoved},
		{"sentences changed", t.SentenceChanged}, {"valid_at changed", t.ValidAtChanged}, {"invalid_at changed", t.InvalidAtChanged},
		{"expired_at changed", t.ExpiredAtChanged}, {"facts newly closed", t.NewlyClosed}, {"facts reopened", t.Reopened},
		{"communities changed", t.CommunitiesChanged}, {"communities added", t.CommunitiesAdded}, {"communities removed", t.CommunitiesRemoved},
	} {
		fmt.Fprintf(w, "| %s | %d |\n", row.name, row.n)
	}
	fmt.Fprintf(w, "\n## LLM usage of the runs that built each side\n\n| | runs | calls | cache hits | prompt tokens | completion tokens | cost (USD) |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range []struct {
		name string
		u    *Usage
		kind string
	}{{"A", r.UsageA, r.KindA}, {"B", r.UsageB, r.KindB}} {
		if s.u == nil {
			fmt.Fprintf(w, "| %s: %s | – | – | – | – | – | – |\n", s.name, noRuns(s.kind))
			continue
		}
		for _, row := range []struct {
			label string
			l     func() (int, int, int, int, float64)
		}{
			{"all runs", func() (int, int, int, int, float64) {
				return s.u.Total.Calls, s.u.Total.CacheHits, s.u.Total.PromptTokens, s.u.Total.CompletionTokens, s.u.Total.CostUSD
			}},
			{"last run", func() (int, int, int, int, float64) {
				return s.u.Last.Calls, s.u.Last.CacheHits, s.u.Last.PromptTokens, s.u.Last.CompletionTokens, s.u.Last.CostUSD
			}},
		} {
			c, h, p, q, cost := row.l()
			runs := fmt.Sprint(s.u.Runs)
			if row.label == "last run" {
				runs = s.u.LastOutcome
			}
			fmt.Fprintf(w, "| %s, %s | %s | %d | %d | %d | %d | %.4f |\n", s.name, row.label, runs, c, h, p, q, cost)
		}
	}
	if a, b := temporalOf(r.UsageA), temporalOf(r.UsageB); a != nil || b != nil {
		temporalTable(w, a, b)
	}
	if r.Gold != nil {
		fmt.Fprintln(w)
		r.Gold.Markdown(w)
	}
	if len(r.Top) == 0 {
		fmt.Fprintf(w, "\nNo changes.\n")
		return
	}
	fmt.Fprintf(w, "\n## The %d most important changes\n", len(r.Top))
	for i, n := range r.Top {
		fmt.Fprintf(w, "\n### %d. %s — %s (group %s)\n\n", i+1, n.Kind, n.Title, n.Group)
		for _, s := range []struct{ label, text, ep string }{{"A", n.A, n.AEpisode}, {"B", n.B, n.BEpisode}} {
			if s.text == "" && s.ep == "" {
				continue
			}
			fmt.Fprintf(w, "- **%s**: %s\n", s.label, orDash(s.text))
			if s.ep != "" {
				fmt.Fprintf(w, "  > %s\n", strings.ReplaceAll(s.ep, "\n", " "))
			}
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// JSONWriter streams a diff as one JSON object: {"groups": [every changed group, as Run emits
// it], "report": the Report}, so a diff of any size is written group by group.
type JSONWriter struct {
	w   io.Writer
	n   int
	err error
}

// NewJSONWriter starts the object on w.
func NewJSONWriter(w io.Writer) *JSONWriter {
	j := &JSONWriter{w: w}
	_, j.err = io.WriteString(w, "{\"groups\": [\n")
	return j
}

// Group writes one group; it is Run's emit function.
func (j *JSONWriter) Group(d *GroupDiff) error {
	if j.err != nil {
		return j.err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encoding the diff of group %s: %w", d.Group, err)
	}
	sep := ""
	if j.n > 0 {
		sep = ",\n"
	}
	j.n++
	_, j.err = fmt.Fprintf(j.w, "%s%s", sep, b)
	return j.err
}

// Close writes the report and ends the object.
func (j *JSONWriter) Close(r *Report) error {
	if j.err != nil {
		return j.err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the diff report: %w", err)
	}
	_, err = fmt.Fprintf(j.w, "\n],\n\"report\": %s}\n", b)
	return err
}
