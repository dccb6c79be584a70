package evaluation

import (
	"errors"
	"fmt"
	"io"
)

// GoldChange compares the gold scores of two graphs A and B of the same episodes (the same
// input built twice) by a paired bootstrap: both graphs' episode counts are drawn with the same indices,
// Resamples times, and the change of each score is taken over each draw. A change whose 95%
// interval holds 0 is within what the choice of episodes moves.
type GoldChange struct {
	Episodes  int    `json:"episodes"`
	Resamples int    `json:"resamples"`
	A         Scores `json:"a"`
	B         Scores `json:"b"`
	Change    Scores `json:"change"` // B − A
	// Low and High bound the 95% interval of the change (2.5th and 97.5th percentiles).
	Low  Scores `json:"low"`
	High Scores `json:"high"`
	// BHigher is the share of draws in which B's F1 is higher than A's, BLower the share in
	// which it is lower.
	BHigher float64 `json:"b_higher"`
	BLower  float64 `json:"b_lower"`
}

// CompareGold pairs the episodes of two gold reports (by group and record key) and bootstraps
// the change of precision, recall and F1 from a to b. Reports of different gold facts
// or different episodes are an error: their scores do not compare episode by episode.
func CompareGold(a, b *GoldReport) (*GoldChange, error) {
	if a.GoldFacts != b.GoldFacts {
		return nil, fmt.Errorf("comparing gold scores: %d gold facts in A, %d in B: not the same gold file", a.GoldFacts, b.GoldFacts)
	}
	if len(a.PerEpisode) == 0 || len(b.PerEpisode) == 0 {
		return nil, errors.New("comparing gold scores: no episode counts (a report of an older build?)")
	}
	if len(a.PerEpisode) != len(b.PerEpisode) {
		return nil, fmt.Errorf("comparing gold scores: %d episodes in A, %d in B: not the same input", len(a.PerEpisode), len(b.PerEpisode))
	}
	at := make(map[[2]string]int, len(b.PerEpisode))
	for i, e := range b.PerEpisode {
		at[[2]string{e.Group, e.Episode}] = i
	}
	ea, eb := a.PerEpisode, make([]EpisodeScore, len(a.PerEpisode))
	for i, e := range ea {
		j, ok := at[[2]string{e.Group, e.Episode}]
		if !ok {
			return nil, fmt.Errorf("comparing gold scores: episode %s of group %s is in A only: not the same input", e.Episode, e.Group)
		}
		if b.PerEpisode[j].GoldFacts != e.GoldFacts {
			return nil, fmt.Errorf("comparing gold scores: episode %s of group %s has %d gold facts in A and %d in B",
				e.Episode, e.Group, e.GoldFacts, b.PerEpisode[j].GoldFacts)
		}
		eb[i] = b.PerEpisode[j]
	}
	c := &GoldChange{Episodes: len(ea), Resamples: Resamples,
		A: scores(a.GoldFacts, a.GraphFacts, a.Matched), B: scores(b.GoldFacts, b.GraphFacts, b.Matched)}
	c.Change = Scores{c.B.Precision - c.A.Precision, c.B.Recall - c.A.Recall, c.B.F1 - c.A.F1}
	var dp, dr, df []float64
	for _, d := range draws(len(ea)) {
		sa, sb := scores(sum(ea, d)), scores(sum(eb, d))
		dp, dr, df = append(dp, sb.Precision-sa.Precision), append(dr, sb.Recall-sa.Recall), append(df, sb.F1-sa.F1)
	}
	p, r := interval95(dp), interval95(dr)
	f, higher, lower := pairedSpread(df)
	c.Low, c.High = Scores{p[0], r[0], f[0]}, Scores{p[1], r[1], f[1]}
	c.BHigher, c.BLower = higher, lower
	return c, nil
}

// Markdown writes the comparison as a table with a sentence saying whether it exceeds the
// spread.
func (c *GoldChange) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## Gold scores, paired over %d episodes\n\n", c.Episodes)
	fmt.Fprintf(w, "| score | A | B | change | 95%% interval of the change |\n|---|---:|---:|---:|---|\n")
	row := func(name string, a, b, d, lo, hi float64) {
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %+.3f | %+.3f … %+.3f |\n", name, a, b, d, lo, hi)
	}
	row("precision", c.A.Precision, c.B.Precision, c.Change.Precision, c.Low.Precision, c.High.Precision)
	row("recall", c.A.Recall, c.B.Recall, c.Change.Recall, c.Low.Recall, c.High.Recall)
	row("F1", c.A.F1, c.B.F1, c.Change.F1, c.Low.F1, c.High.F1)
	fmt.Fprintf(w, "\n%s\n\n", c.Verdict())
}

// Verdict says in one sentence whether B's F1 differs from A's beyond the spread.
func (c *GoldChange) Verdict() string {
	how := direction(c.Low.F1, c.High.F1, c.BHigher, c.BLower)
	switch how {
	case "the same":
		return fmt.Sprintf("B's F1 equals A's in every one of %d paired resamples of the episodes.", c.Resamples)
	case "within the spread":
		how = "within the spread of the gold set (its 95% interval holds 0)"
	default:
		how += " of the gold set"
	}
	return fmt.Sprintf("B's F1 is %s: higher in %.1f%% and lower in %.1f%% of %d paired resamples of the episodes.",
		how, 100*c.BHigher, 100*c.BLower, c.Resamples)
}
