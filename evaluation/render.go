package evaluation

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tkgraph/backfill/snapshots"
)

// maxListed bounds each list of examples (misses, extras, wrong intervals) in the markdown.
const maxListed = 40

// Summary writes a few lines: the health totals and, when measured, the headline of each
// other part.
func (r *Report) Summary(w io.Writer) {
	h := r.Health
	fmt.Fprintf(w, "eval %s\n", r.Graph)
	fmt.Fprintf(w, "  health: %d groups, %d episodes, %d entities, %d facts (%.2f per episode); valid_at known %s, closed %s;\n"+
		"          name collisions %d, entities without facts %d, closed by a fact sharing no endpoint %s\n",
		h.Groups, h.Episodes, h.Entities, h.Facts, h.FactsPerEpisode, pct(h.ValidAtShare), pct(h.ClosedShare),
		h.NameCollisions, h.EntitiesWithoutFacts, r.optInt(h.ClosedByStranger))
	if g := r.Gold; g != nil {
		fmt.Fprintf(w, "  gold %s: %d gold facts, %d graph facts, %d matched: precision %.2f, recall %.2f, F1 %.2f%s;\n"+
			"          intervals right %s (valid_at %s, invalid_at %s); wrongly closed %d of %d open, closures missed %d of %d, closed at the wrong time %d\n",
			g.File, g.GoldFacts, g.GraphFacts, g.Matched, g.Precision, g.Recall, g.F1, g.Spread.f1Text(), pct(g.IntervalAccuracy),
			pct(g.ValidAtAccuracy), pct(g.InvalidAtAccuracy), g.WronglyClosed, g.MatchedOpen, g.ClosuresMissed,
			g.MatchedClosed, g.ClosedWrongTime)
	}
	if rt := r.Retrieval; rt != nil {
		rt.summary(w)
	}
	if q := r.QA; q != nil {
		fmt.Fprintf(w, "  qa: %d of %d correct (%s), top %d facts\n", q.Correct, q.Questions, pct(q.Accuracy), q.K)
	}
	if r.Against != nil {
		r.Against.Summary(w)
	}
}

// Markdown writes the whole report as Markdown tables.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# backfill eval\n\nGraph: %s.\n\n", r.Graph)
	r.healthMarkdown(w)
	if rt := r.Retrieval; rt != nil {
		rt.Markdown(w)
	}
	if g := r.Gold; g != nil {
		g.Markdown(w)
	}
	if q := r.QA; q != nil {
		fmt.Fprintf(w, "## QA (answers from the top %d facts, graded by the LLM judge)\n\n| category | questions | correct | accuracy |\n|---|---:|---:|---:|\n", q.K)
		for _, c := range q.ByCategory {
			fmt.Fprintf(w, "| %s | %d | %d | %s |\n", c.Category, c.Questions, c.Correct, pct(c.Accuracy))
		}
		fmt.Fprintf(w, "| all | %d | %d | %s |\n\n", q.Questions, q.Correct, pct(q.Accuracy))
		if r.QABudgetStopped {
			fmt.Fprintf(w, "The budget (limits.max_cost_usd) stopped the QA calls: the table covers the questions answered before.\n\n")
		}
	}
	if u := r.LLM; u != nil {
		fmt.Fprintf(w, "Eval's own LLM use: %d calls, %d cache hits, %d prompt / %d completion tokens, $%.4f.\n\n",
			u.Calls, u.CacheHits, u.PromptTokens, u.CompletionTokens, u.CostUSD)
	}
	if r.Against != nil {
		r.Against.Markdown(w)
	}
}

func (r *Report) healthMarkdown(w io.Writer) {
	fmt.Fprintf(w, "## Graph health\n\n| group | episodes | entities | facts | facts/episode | valid_at known | closed | name collisions | entities without facts | closed by a stranger | unattributed closures | communities |\n"+
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	rows := r.HealthByGroup
	if len(rows) > 30 {
		rows = nil
	}
	for _, h := range append(rows, r.Health) {
		name := h.Group
		if name == "" {
			name = fmt.Sprintf("all (%d groups)", h.Groups)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %.2f | %s | %s | %d | %d | %s | %s | %d |\n", name, h.Episodes, h.Entities, h.Facts,
			h.FactsPerEpisode, pct(h.ValidAtShare), pct(h.ClosedShare), h.NameCollisions, h.EntitiesWithoutFacts,
			r.optInt(h.ClosedByStranger), r.optInt(h.ClosuresUnattributed), h.Communities)
	}
	fmt.Fprintf(w, "\nCommunity sizes (members: communities): %s.\n\n", sizes(r.Health.CommunitySizes))
	if len(r.Health.Collisions) > 0 {
		fmt.Fprintf(w, "Name collisions (first %d): %s.\n\n", maxCollisionExamples, strings.Join(r.Health.Collisions, "; "))
	}
}

// summary writes the retrieval lines of Summary: the "all" row of every mode.
func (rt *RetrievalReport) summary(w io.Writer) {
	all := rt.Categories[len(rt.Categories)-1]
	fmt.Fprintf(w, "  retrieval %s (%d questions, evidence in the graph for %d):\n", rt.Dataset, all.Questions, all.WithEvidence)
	line := func(mode string, c Recall) {
		var ev, sess, ans []string
		for i, k := range rt.Ks {
			ev = append(ev, fmt.Sprintf("@%d %s", k, pct(c.EvidenceRecall[i])))
			if i < len(c.SessionRecall) {
				sess = append(sess, fmt.Sprintf("@%d %s", k, pct(c.SessionRecall[i])))
			}
			ans = append(ans, fmt.Sprintf("@%d %s", k, pct(c.AnswerRecall[i])))
		}
		fmt.Fprintf(w, "    %-15s evidence turn %s; session %s; answer %s\n", mode+":", strings.Join(ev, ", "),
			strings.Join(sess, ", "), strings.Join(ans, ", "))
	}
	line(ModeFacts, all)
	for _, b := range rt.Baselines {
		line(b.Mode, b.Categories[len(b.Categories)-1])
	}
}

// modeText says what each retrieval mode retrieves, for the Markdown.
var modeText = map[string]string{
	ModeFacts: "the graph's facts: hybrid search as Graphiti's (BM25 over fact sentences and entity names, cosine similarity " +
		"over the fact embeddings above the floor, fused by reciprocal rank fusion) among the facts valid at the question's time; k facts",
	ModeFactsEpisodes: "the episodes found through the graph: episodes-hybrid with each episode's BM25 document its text followed by " +
		"the sentences of the facts extracted from it; k episodes",
	ModeEpisodesBM25:   "no graph: the k best episodes by BM25 over their raw text",
	ModeEpisodesDense:  "no graph: the k best episodes by cosine similarity of their embeddings (the job's embedder) to the question's, no floor",
	ModeEpisodesHybrid: "no graph: episodes-bm25 and episodes-dense (2k candidates each) fused by reciprocal rank fusion; k episodes",
	ModeCombined: "a labelled extra at twice the budget: the k facts and the k episodes of episodes-bm25 beside them, as " +
		"Graphiti's combined search returns them; 2k items",
}

// Markdown writes the retrieval tables: the graph's facts, then each baseline mode.
func (rt *RetrievalReport) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## Retrieval against %s ground truth\n\nEvery mode on the same questions, computed by the same code, at k items (facts+episodes-2k at 2k). Cosine floor of the facts %.2f.\n\n",
		rt.Dataset, rt.MinCosine)
	rt.modeMarkdown(w, ModeFacts, rt.Categories, rt.Apart)
	for _, b := range rt.Baselines {
		rt.modeMarkdown(w, b.Mode, b.Categories, b.Apart)
	}
	fmt.Fprintf(w, "Each cell is the share, with hits/questions in brackets. Evidence (turn) recall: an evidence turn was retrieved\n"+
		"(a retrieved fact comes from it, or it is a retrieved episode); session recall: a turn of an evidence session was; both\n"+
		"count the questions whose evidence turns are in the graph. Answer recall counts those with a gold answer. Apart:\n"+
		"adversarial or abstention questions and questions without evidence, not in \"all\". Questions whose group is not in the\n"+
		"graph: %d. Evidence keys naming no episode: %d; unreadable evidence ids: %d. Questions whose cosine search found nothing\n"+
		"above the floor: %d.\n\n", rt.GroupMissing, rt.EvidenceMissing, len(rt.Unreadable), rt.CosineEmpty)
	if len(rt.Paired) > 0 {
		fmt.Fprintf(w, "The graph's k items against each raw baseline, paired over the same questions (%d resamples; a change whose interval holds 0 is within what the choice of questions moves):\n\n", Resamples)
		for i := range rt.Paired {
			rt.Paired[i].Markdown(w)
		}
	}
	all := rt.Categories[len(rt.Categories)-1]
	if len(all.EvidenceRecall95) < len(rt.Ks) || len(all.AnswerRecall95) < len(rt.Ks) {
		return // a report stored before the intervals existed
	}
	var parts []string
	for i, k := range rt.Ks {
		parts = append(parts, fmt.Sprintf("evidence R@%d %.3f–%.3f", k, all.EvidenceRecall95[i][0], all.EvidenceRecall95[i][1]))
	}
	for i, k := range rt.Ks {
		if i < len(all.SessionRecall95) {
			parts = append(parts, fmt.Sprintf("session R@%d %.3f–%.3f", k, all.SessionRecall95[i][0], all.SessionRecall95[i][1]))
		}
	}
	for i, k := range rt.Ks {
		parts = append(parts, fmt.Sprintf("answer R@%d %.3f–%.3f", k, all.AnswerRecall95[i][0], all.AnswerRecall95[i][1]))
	}
	fmt.Fprintf(w, "95%% Wilson intervals of the facts' \"all\" (how far the recalls move with the choice of questions): %s.\n\n", strings.Join(parts, ", "))
}

// modeMarkdown writes one mode's table.
func (rt *RetrievalReport) modeMarkdown(w io.Writer, mode string, categories, apart []Recall) {
	fmt.Fprintf(w, "**%s**: %s.\n\n", mode, modeText[mode])
	head, sep := "| category | questions |", "|---|---:|"
	for _, name := range []string{"evidence", "session", "answer"} {
		for _, k := range rt.Ks {
			head += fmt.Sprintf(" %s R@%d |", name, k)
			sep += "---:|"
		}
	}
	fmt.Fprintf(w, "%s\n%s\n", head, sep)
	row := func(label string, c Recall) {
		line := fmt.Sprintf("| %s | %d |", label, c.Questions)
		for i := range rt.Ks {
			line += " " + frac(c.EvidenceHits[i], c.WithEvidence) + " |"
		}
		for i := range rt.Ks {
			if i < len(c.SessionHits) {
				line += " " + frac(c.SessionHits[i], c.WithEvidence) + " |"
			} else {
				line += " – |"
			}
		}
		for i := range rt.Ks {
			line += " " + frac(c.AnswerHits[i], c.WithAnswer) + " |"
		}
		fmt.Fprintln(w, line)
	}
	for _, c := range categories {
		row(c.Category, c)
	}
	for _, c := range apart {
		row(c.Category+" (apart)", c)
	}
	fmt.Fprintln(w)
}

// Markdown writes the gold scores and the lists behind them.
func (g *GoldReport) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## Extraction and temporal accuracy against %s\n\n", g.File)
	fmt.Fprintf(w, "| groups | gold facts | graph facts | matched | duplicates | precision | recall | F1 |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %.3f | %.3f | %.3f |\n\n", g.Groups, g.GoldFacts, g.GraphFacts, g.Matched, g.Duplicates,
		g.Precision, g.Recall, g.F1)
	if sp := g.Spread; sp != nil {
		fmt.Fprintf(w, "95%% bootstrap intervals (%d resamples of the %d episodes; a change of prompt, model or setting that stays inside them is\n"+
			"within what the choice of episodes moves; `backfill diff --gold` compares two graphs episode by episode): precision\n"+
			"%.3f–%.3f, recall %.3f–%.3f, F1 %.3f–%.3f.\n\n", sp.Resamples, sp.Episodes, sp.Precision[0], sp.Precision[1],
			sp.Recall[0], sp.Recall[1], sp.F1[0], sp.F1[1])
	}
	fmt.Fprintf(w, "| matched facts | valid_at right | invalid_at right | both right | wrongly closed | closures missed | closed at the wrong time |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %s | %d |\n\n", g.Matched, frac(g.ValidAtCorrect, g.Matched), frac(g.InvalidAtCorrect, g.Matched),
		frac(g.IntervalCorrect, g.Matched), frac(g.WronglyClosed, g.MatchedOpen), frac(g.ClosuresMissed, g.MatchedClosed), g.ClosedWrongTime)
	list(w, "Gold facts the graph misses", g.Misses)
	list(w, "Graph facts the gold does not state", g.Extras)
	list(w, "Matched facts with another interval", g.WrongIntervals)
}

func list(w io.Writer, title string, xs []string) {
	if len(xs) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d):\n\n", title, len(xs))
	for i, x := range xs {
		if i == maxListed {
			fmt.Fprintf(w, "- … %d more\n", len(xs)-maxListed)
			break
		}
		fmt.Fprintf(w, "- %s\n", x)
	}
	fmt.Fprintln(w)
}

// f1Text is the F1 interval for the summary line, empty without one.
func (sp *Spread) f1Text() string {
	if sp == nil {
		return ""
	}
	return fmt.Sprintf(" (95%% interval %.2f–%.2f over %d episodes)", sp.F1[0], sp.F1[1], sp.Episodes)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// frac renders a share with its counts, "–" when there is nothing to count.
func frac(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f (%d/%d)", float64(a)/float64(b), a, b)
}

// optInt renders a count taken from the version log, or why the graph read has none.
func (r *Report) optInt(p *int) string {
	if p != nil {
		return fmt.Sprint(*p)
	}
	switch r.Kind {
	case snapshots.KindExport:
		return "n/a (an export's fact_versions.parquet is ordered by fact, not read group by group: eval the checkpoint for this)"
	case "":
		return "n/a (no version log: eval the checkpoint for this)"
	}
	return "n/a (a " + r.Kind + " keeps no version log: eval the checkpoint that built it for this)"
}

// sizes renders a size histogram as "1: 4, 2: 3, …".
func sizes(m map[int]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
