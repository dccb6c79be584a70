package graphdiff

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// FactChange is one fact-level change of a group.
type FactChange struct {
	Kind   string    `json:"kind"`   // added | removed | changed
	Triple string    `json:"triple"` // "source PREDICATE target", B's names (A's when removed)
	A      *FactSide `json:"a,omitempty"`
	B      *FactSide `json:"b,omitempty"`
	// What changed of a matched fact: sentence, valid_at, invalid_at, expired_at, and closed
	// (open in A, closed in B) or reopened (the reverse).
	What []string `json:"what,omitempty"`
	// ClosedBy is the sentence of the fact that closes it: in B when newly closed, in A when
	// reopened (a fact sharing an endpoint whose valid_at is the end).
	ClosedBy string `json:"closed_by,omitempty"`
}

// FactSide is a fact as one side has it.
type FactSide struct {
	UUID      string     `json:"uuid"`
	Fact      string     `json:"fact"`
	ValidAt   *time.Time `json:"valid_at"`
	InvalidAt *time.Time `json:"invalid_at"`
	ExpiredAt *time.Time `json:"expired_at"`
	Episode   string     `json:"episode,omitempty"` // the creating episode
}

func factSide(f *graph.Fact) *FactSide {
	s := &FactSide{UUID: f.UUID, Fact: f.Fact, ValidAt: f.ValidAt, InvalidAt: f.InvalidAt, ExpiredAt: f.ExpiredAt}
	if len(f.Episodes) > 0 {
		s.Episode = f.Episodes[0]
	}
	return s
}

// diffFacts matches facts by uuid, then by mapped endpoints and predicate (the most similar
// sentence first), and reports what differs.
func diffFacts(a, b *side, m *entityMatch) []FactChange {
	bByID := map[string]*graph.Fact{}
	for i := range b.g.Facts {
		bByID[b.g.Facts[i].UUID] = &b.g.Facts[i]
	}
	taken := map[string]bool{}
	type pair struct{ x, y *graph.Fact }
	var pairs []pair
	var rest []*graph.Fact
	for i := range a.g.Facts {
		f := &a.g.Facts[i]
		if g, ok := bByID[f.UUID]; ok {
			pairs, taken[g.UUID] = append(pairs, pair{f, g}), true
		} else {
			rest = append(rest, f)
		}
	}
	byKey := map[string][]*graph.Fact{}
	for i := range b.g.Facts {
		g := &b.g.Facts[i]
		if !taken[g.UUID] {
			k := g.SourceUUID + "\x1f" + g.Name + "\x1f" + g.TargetUUID
			byKey[k] = append(byKey[k], g)
		}
	}
	var out []FactChange
	for _, f := range rest {
		k := m.toB[f.SourceUUID] + "\x1f" + f.Name + "\x1f" + m.toB[f.TargetUUID]
		var best *graph.Fact
		for _, g := range byKey[k] {
			if !taken[g.UUID] && (best == nil || similarity(f.Fact, g.Fact) > similarity(f.Fact, best.Fact)) {
				best = g
			}
		}
		if best == nil {
			out = append(out, FactChange{Kind: "removed", Triple: triple(a, f), A: factSide(f)})
			continue
		}
		taken[best.UUID] = true
		pairs = append(pairs, pair{f, best})
	}
	for _, p := range pairs {
		if c, ok := compareFacts(a, b, p.x, p.y); ok {
			out = append(out, c)
		}
	}
	for i := range b.g.Facts {
		if g := &b.g.Facts[i]; !taken[g.UUID] {
			out = append(out, FactChange{Kind: "added", Triple: triple(b, g), B: factSide(g)})
		}
	}
	slices.SortStableFunc(out, func(x, y FactChange) int {
		return cmp.Or(cmp.Compare(x.Triple, y.Triple), cmp.Compare(x.Kind, y.Kind))
	})
	return out
}

// compareFacts reports what differs between a matched pair; ok is false when nothing does.
func compareFacts(a, b *side, x, y *graph.Fact) (FactChange, bool) {
	c := FactChange{Kind: "changed", Triple: triple(b, y), A: factSide(x), B: factSide(y)}
	if x.Fact != y.Fact {
		c.What = append(c.What, "sentence")
	}
	for _, t := range []struct {
		name string
		p, q *time.Time
	}{{"valid_at", x.ValidAt, y.ValidAt}, {"invalid_at", x.InvalidAt, y.InvalidAt}, {"expired_at", x.ExpiredAt, y.ExpiredAt}} {
		if !graph.SameTime(t.p, t.q) {
			c.What = append(c.What, t.name)
		}
	}
	switch {
	case x.InvalidAt == nil && y.InvalidAt != nil:
		c.What = append(c.What, "closed")
		c.ClosedBy = closer(b, y)
	case x.InvalidAt != nil && y.InvalidAt == nil:
		c.What = append(c.What, "reopened")
		c.ClosedBy = closer(a, x)
	}
	return c, len(c.What) > 0
}

// closer is the sentence of the fact of the same side that shares an endpoint with f and
// starts when f ends (the same predicate first), or "" when f ends on its own.
func closer(s *side, f *graph.Fact) string {
	var best *graph.Fact
	for i := range s.g.Facts {
		g := &s.g.Facts[i]
		if g.UUID == f.UUID || g.ValidAt == nil || !g.ValidAt.Equal(*f.InvalidAt) || !graph.SharesEndpoint(f, g) {
			continue
		}
		if best == nil || g.Name == f.Name && best.Name != f.Name {
			best = g
		}
	}
	if best == nil {
		return ""
	}
	return best.Fact
}

func triple(s *side, f *graph.Fact) string {
	return s.name(f.SourceUUID) + " " + f.Name + " " + s.name(f.TargetUUID)
}

// similarity is the Jaccard similarity of the lower-cased word sets of two sentences.
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	if union := len(wa) + len(wb) - inter; union > 0 {
		return float64(inter) / float64(union)
	}
	return 1
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		out[strings.Trim(w, ".,;:!?()\"'")] = true
	}
	return out
}
