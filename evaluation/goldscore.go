package evaluation

import (
	"fmt"
	"strings"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
)

// GoldReport is extraction and temporal accuracy against a gold file. A graph fact matches a
// gold fact of its group when its endpoints' names and its relation agree after normalisation,
// the aliases and the synonym table; each gold fact takes at most one graph fact (the one whose
// interval agrees best, then the lowest uuid) and each graph fact at most one gold fact.
// Precision is matched ÷ graph facts of the gold's groups, recall matched ÷ gold facts; graph
// facts repeating a matched gold fact are counted as Duplicates (and not as matches).
type GoldReport struct {
	File       string  `json:"file"`
	Groups     int     `json:"groups"`
	GoldFacts  int     `json:"gold_facts"`
	GraphFacts int     `json:"graph_facts"`
	Matched    int     `json:"matched"`
	Duplicates int     `json:"duplicates"`
	Precision  float64 `json:"precision"`
	Recall     float64 `json:"recall"`
	F1         float64 `json:"f1"`
	// Interval accuracy of the matched facts.
	ValidAtCorrect    int     `json:"valid_at_correct"`
	InvalidAtCorrect  int     `json:"invalid_at_correct"`
	IntervalCorrect   int     `json:"interval_correct"`
	ValidAtAccuracy   float64 `json:"valid_at_accuracy"`
	InvalidAtAccuracy float64 `json:"invalid_at_accuracy"`
	IntervalAccuracy  float64 `json:"interval_accuracy"`
	// Closures of the matched facts: WronglyClosed are closed in the graph and open in the
	// gold (share of the matched facts open in the gold); ClosuresMissed are open in the graph
	// and closed in the gold (share of the matched facts closed in the gold); ClosedWrongTime
	// are closed in both at different times.
	MatchedOpen        int     `json:"matched_open_in_gold"`
	MatchedClosed      int     `json:"matched_closed_in_gold"`
	WronglyClosed      int     `json:"wrongly_closed"`
	WronglyClosedShare float64 `json:"wrongly_closed_share"`
	ClosuresMissed     int     `json:"closures_missed"`
	ClosuresMissedRate float64 `json:"closures_missed_share"`
	ClosedWrongTime    int     `json:"closed_at_wrong_time"`
	// Misses are gold facts without a graph fact; Extras graph facts without a gold fact;
	// WrongIntervals matched facts whose interval differs. Each line names the group.
	Misses         []string    `json:"misses"`
	Extras         []string    `json:"extras"`
	WrongIntervals []string    `json:"wrong_intervals"`
	PerGroup       []GoldGroup `json:"per_group"`
	// PerEpisode are the counts of every episode of the gold groups, in group and episode
	// order: what Spread and CompareGold resample.
	PerEpisode []EpisodeScore `json:"per_episode"`
	// Spread is the 95% bootstrap interval of precision, recall and F1 over the episodes.
	Spread *Spread `json:"spread,omitempty"`
}

// GoldGroup is one group's share of the gold scores.
type GoldGroup struct {
	Group      string `json:"group"`
	GoldFacts  int    `json:"gold_facts"`
	GraphFacts int    `json:"graph_facts"`
	Matched    int    `json:"matched"`
}

// checkEpisodes finds every gold episode of the group in the graph: at maps a gold episode
// (index in Gold.Episodes) to the position of its graph episode (0 for a missing one, which is
// an error, as is one whose content does not contain its "says"). When a gold episode named by
// its key is missing from a group whose episodes carry no record key (Group.NamedKeys), one
// more error says why.
func (g *Gold) checkEpisodes(grp *snapshots.Group) (at map[int]int, errs []error) {
	at = map[int]int{}
	keyMissing := false
	for i, ep := range g.Episodes {
		if ep.Group != grp.ID {
			continue
		}
		j := findEpisode(ep, grp)
		at[i] = max(j, 0)
		switch {
		case j < 0:
			keyMissing = keyMissing || ep.Key != ""
			errs = append(errs, fmt.Errorf("gold episodes[%d] (group %s, %s%s) is not in the graph", i, ep.Group, ep.Key, ep.At))
		case ep.Says != "" && !strings.Contains(squash(grp.Episodes[j].Content), squash(ep.Says)):
			errs = append(errs, fmt.Errorf("gold episodes[%d] (group %s, %s%s) does not say %q", i, ep.Group, ep.Key, ep.At, ep.Says))
		}
	}
	if keyMissing && grp.NamedKeys > 0 {
		errs = append(errs, fmt.Errorf("group %s: %d of its %d episodes have no record_key property, so their names stand for their record keys "+
			"(a graph backfill loaded before load-v4 gets them when its job runs again; name Graphiti's episodes by their record keys)",
			grp.ID, grp.NamedKeys, len(grp.Episodes)))
	}
	return at, errs
}

// findEpisode is the position of the gold episode in the group's episodes, -1 when absent.
func findEpisode(ep GoldEpisode, grp *snapshots.Group) int {
	for j := range grp.Episodes {
		e := &grp.Episodes[j]
		if ep.Key != "" && e.RecordKey == ep.Key || ep.At != "" && sameInstant(ep.At, e) {
			return j
		}
	}
	return -1
}

func sameInstant(at string, e *graph.Episode) bool {
	t, err := time.Parse(time.RFC3339, at)
	return err == nil && e.ReferenceTime.Equal(t)
}

// squash is lower case with single spaces, for the "says" check.
func squash(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// scoreGroup matches one group's graph facts against its gold facts and adds the counts to r;
// goldAt is checkEpisodes' map of the group's gold episodes to graph episodes.
func (g *Gold) scoreGroup(grp *snapshots.Group, goldAt map[int]int, r *GoldReport) {
	names := make(map[string]string, len(grp.Entities))
	for _, e := range grp.Entities {
		names[e.UUID] = e.Name
	}
	gold := g.facts[grp.ID]
	byKey := map[string][]int{} // graph facts by key, in uuid order
	for i, f := range grp.Facts {
		k := g.key(names[f.SourceUUID], f.Name, names[f.TargetUUID])
		byKey[k] = append(byKey[k], i)
	}
	goldKeys := map[string]bool{}
	taken := make([]bool, len(grp.Facts))
	matchOf := make([]int, len(gold))
	gg := GoldGroup{Group: grp.ID, GoldFacts: len(gold), GraphFacts: len(grp.Facts)}
	for n, gf := range gold {
		matchOf[n] = -1
		goldKeys[gf.key] = true
		best, bestScore := -1, -1
		for _, i := range byKey[gf.key] {
			if taken[i] {
				continue
			}
			f := grp.Facts[i]
			score := 0
			if gf.validAt.matches(f.ValidAt) {
				score += 2
			}
			if gf.invalidAt.matches(f.InvalidAt) {
				score++
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			r.Misses = append(r.Misses, fmt.Sprintf("%s: %s %s %s (%s – %s)", grp.ID, gf.source, gf.rel, gf.target, gf.validAt, gf.invalidAt))
			continue
		}
		taken[best] = true
		matchOf[n] = best
		gg.Matched++
		r.interval(grp.ID, gf, grp.Facts[best])
	}
	for i, f := range grp.Facts {
		if taken[i] {
			continue
		}
		if goldKeys[g.key(names[f.SourceUUID], f.Name, names[f.TargetUUID])] {
			r.Duplicates++
			continue
		}
		r.Extras = append(r.Extras, fmt.Sprintf("%s: %s %s %s (%s – %s) %q", grp.ID, names[f.SourceUUID], f.Name,
			names[f.TargetUUID], timeOr(f.ValidAt), timeOr(f.InvalidAt), f.Fact))
	}
	r.PerEpisode = append(r.PerEpisode, g.episodeScores(grp, goldAt, matchOf)...)
	r.Groups++
	r.GoldFacts += gg.GoldFacts
	r.GraphFacts += gg.GraphFacts
	r.Matched += gg.Matched
	r.PerGroup = append(r.PerGroup, gg)
}

// interval scores the interval of one matched pair.
func (r *GoldReport) interval(group string, gf goldFact, f graph.Fact) {
	va, inv := gf.validAt.matches(f.ValidAt), gf.invalidAt.matches(f.InvalidAt)
	if va {
		r.ValidAtCorrect++
	}
	if inv {
		r.InvalidAtCorrect++
	}
	if va && inv {
		r.IntervalCorrect++
	} else {
		r.WrongIntervals = append(r.WrongIntervals, fmt.Sprintf("%s: %s %s %s: gold %s – %s, graph %s – %s %q", group,
			gf.source, gf.rel, gf.target, gf.validAt, gf.invalidAt, timeOr(f.ValidAt), timeOr(f.InvalidAt), f.Fact))
	}
	switch {
	case gf.invalidAt == nil:
		r.MatchedOpen++
		if f.InvalidAt != nil {
			r.WronglyClosed++
		}
	default:
		r.MatchedClosed++
		switch {
		case f.InvalidAt == nil:
			r.ClosuresMissed++
		case !inv:
			r.ClosedWrongTime++
		}
	}
}

func (r *GoldReport) finish() {
	s := scores(r.GoldFacts, r.GraphFacts, r.Matched)
	r.Precision, r.Recall, r.F1 = s.Precision, s.Recall, s.F1
	r.Spread = spreadOf(r.PerEpisode)
	r.ValidAtAccuracy, r.InvalidAtAccuracy = ratio(r.ValidAtCorrect, r.Matched), ratio(r.InvalidAtCorrect, r.Matched)
	r.IntervalAccuracy = ratio(r.IntervalCorrect, r.Matched)
	r.WronglyClosedShare, r.ClosuresMissedRate = ratio(r.WronglyClosed, r.MatchedOpen), ratio(r.ClosuresMissed, r.MatchedClosed)
}

// timeOr renders a graph time for a report line, "-" when absent.
func timeOr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
