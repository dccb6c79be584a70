package resolve

import (
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// Fact is a resolved, de-duplicated fact of a group (stages.ResolvedFact, which the temporal
// stage reads).
type Fact = stages.ResolvedFact

// mapped is a fact on canonical endpoints, with the entity indexes of its endpoints.
type mapped struct {
	Fact
	src, tgt int
	norm     string // NormalizeFact of the sentence
}

// mapFacts puts every collected fact on its canonical endpoints, in group order: a fact whose two
// endpoints resolved to one entity is dropped; a predicate that is an edge type of the ontology
// but whose endpoint labels the edge type does not allow becomes RELATES_TO; a fact with the same
// endpoints and the same normalized sentence as an earlier one is merged into it (its episode is
// added to the earlier fact's episodes).
func (r *resolver) mapFacts(b built) []mapped {
	var out []mapped
	exact := map[string]int{}
	for _, rf := range r.n.facts {
		si, ti := b.entOf[rf.src], b.entOf[rf.tgt]
		if si == ti {
			continue
		}
		src, tgt := b.entities[si], b.entities[ti]
		ep := r.eps[rf.episode]
		norm := NormalizeFact(rf.fact.Fact)
		key := src.UUID + "\x1f" + tgt.UUID + "\x1f" + norm
		if j, ok := exact[key]; ok {
			out[j].Episodes = appendMissing(out[j].Episodes, ep.UUID)
			continue
		}
		pred := graph.Predicate(rf.fact.Predicate)
		if !r.opts.edgeAllowed(pred, src.Labels, tgt.Labels) {
			pred = "RELATES_TO"
		}
		exact[key] = len(out)
		out = append(out, mapped{src: si, tgt: ti, norm: norm, Fact: Fact{
			UUID: graph.FactID(r.group, src.UUID, tgt.UUID, pred, norm), Source: src.UUID, Target: tgt.UUID,
			Predicate: pred, Fact: strings.TrimSpace(rf.fact.Fact), Kind: rf.fact.Kind,
			ValidAt: ParseDate(rf.fact.ValidAt), InvalidAt: ParseDate(rf.fact.InvalidAt), Episodes: []string{ep.UUID},
			ReferenceTime: ep.ReferenceTime.UTC(), RecordTime: r.env.RecordTimeOf(ep), Order: rf.episode}})
	}
	return out
}

// appendMissing appends the values of add that xs does not hold yet, in order.
func appendMissing(xs []string, add ...string) []string {
	for _, a := range add {
		found := false
		for _, x := range xs {
			if x == a {
				found = true
				break
			}
		}
		if !found {
			xs = append(xs, a)
		}
	}
	return xs
}
