package evaluation

import (
	"fmt"
	"io"
)

// Comparison is a report compared with an earlier one of the same input (`backfill eval
// --against`): A is the earlier report, B this one.
type Comparison struct {
	File      string           `json:"file"`
	Gold      *GoldChange      `json:"gold,omitempty"`
	Retrieval *RetrievalChange `json:"retrieval,omitempty"`
}

// Compare compares what both reports scored: the gold scores when both have them, the
// retrieval when both have it; nothing in common is an error.
func Compare(file string, a, b *Report) (*Comparison, error) {
	c := &Comparison{File: file}
	var err error
	if a.Gold != nil && b.Gold != nil {
		if c.Gold, err = CompareGold(a.Gold, b.Gold); err != nil {
			return nil, err
		}
	}
	if a.Retrieval != nil && b.Retrieval != nil {
		if c.Retrieval, err = CompareRetrieval(a.Retrieval, b.Retrieval); err != nil {
			return nil, err
		}
	}
	if c.Gold == nil && c.Retrieval == nil {
		return nil, fmt.Errorf("comparing with %s: it has no gold scores or retrieval that this eval has", file)
	}
	return c, nil
}

// Summary writes the comparison's headline lines.
func (c *Comparison) Summary(w io.Writer) {
	if g := c.Gold; g != nil {
		fmt.Fprintf(w, "  against %s: gold F1 %.3f → %.3f (%+.3f, 95%% interval %+.3f … %+.3f)\n", c.File, g.A.F1, g.B.F1, g.Change.F1, g.Low.F1, g.High.F1)
	}
	if rt := c.Retrieval; rt != nil {
		for _, r := range rt.Evidence {
			fmt.Fprintf(w, "  against %s: evidence R@%d %.3f → %.3f (%+.3f, 95%% interval %+.3f … %+.3f: %s)\n", c.File, r.K, r.A, r.B, r.Change,
				r.Low, r.High, r.beyond())
		}
	}
}

// Markdown writes both comparisons.
func (c *Comparison) Markdown(w io.Writer) {
	fmt.Fprintf(w, "# Against %s (A: that report, B: this one)\n\n", c.File)
	if c.Gold != nil {
		c.Gold.Markdown(w)
	}
	if c.Retrieval != nil {
		c.Retrieval.Markdown(w)
	}
}
