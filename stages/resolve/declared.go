package resolve

import (
	"slices"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/stages"
)

// Closure is a snapshot that closes a declared state fact (stages.Closure).
type Closure = stages.Closure

// declaredMention is one declared pair of an episode, with the name keys of its endpoints.
type declaredMention struct {
	episode, decl int
	pair          graph.DeclaredPair
	src, tgt      int
}

// collectDeclared adds the endpoints of episode i's declared facts to the name table (before its
// LLM mentions, so a name both give is spelt as the record writes it), with the declarations'
// types. A pair whose subject or object is of an excluded type, or not a name, is left out.
func (n *names) collectDeclared(opts Options, i int, ex stages.Extraction) {
	for k, d := range ex.Declared {
		if opts.excluded(d.SubjectType) || opts.excluded(d.ObjectType) {
			continue
		}
		for _, p := range d.Pairs {
			sk, tk := namekey.Normalize(p.Subject), namekey.Normalize(p.Object)
			if sk == "" || tk == "" {
				continue
			}
			s := n.add(sk, strings.TrimSpace(p.Subject), i, opts.entityType(d.SubjectType), nil)
			t := n.add(tk, strings.TrimSpace(p.Object), i, opts.entityType(d.ObjectType), nil)
			for _, k := range []int{s, t} {
				if len(n.context[k]) < contextFacts && !slices.Contains(n.context[k], p.Fact) {
					n.context[k] = append(n.context[k], p.Fact)
				}
			}
			n.declared = append(n.declared, declaredMention{episode: i, decl: k, pair: p, src: s, tgt: t})
		}
	}
}

// declaredFacts turns the declared pairs into facts, walking each object's snapshots in group
// order (reference time): a state pair opens a fact at the first snapshot that shows it, valid
// from that snapshot's reference time; every later snapshot of the same object whose
// declaration no longer shows it (its subject or object changed, an element left a list, the
// field became null or empty), up to the next one that shows it again, is a Closure of the
// fact. The first of them ends the fact; the others matter for what was known when (a snapshot
// that arrives late, under record_time: ingest, ends the fact earlier from its own record time
// on). A snapshot that shows the pair again after a closure opens a new fact, recorded no
// earlier than the closure it follows. A snapshot that lacks the declaration's fields
// (Declaration.Missing) says nothing: it neither closes nor continues. A record of no object (it
// lacks mapping.object's field: counted by ingest as records.without_object) is an object of its
// own: its state facts close no other record's and no other record closes them. An event pair is
// a fact of its own snapshot, never closed. Facts are keyed on their canonical endpoints. Ids:
// graph.DeclaredFactID.
func (r *resolver) declaredFacts(b built, exs []stages.Extraction) []Fact {
	type key struct {
		object, decl string
		src, tgt     int
	}
	var out []Fact
	open := map[key]int{} // → index in out of the pair's latest fact
	byEpisode := make([][]declaredMention, len(exs))
	for _, m := range r.n.declared {
		byEpisode[m.episode] = append(byEpisode[m.episode], m)
	}
	for i, ex := range exs {
		ep := r.eps[i]
		object := ex.Object
		if object == "" {
			object = "\x00" + ep.UUID // no key of an object: ids are ids of episodes
		}
		shown := map[key]bool{}
		for _, m := range byEpisode[i] {
			d := ex.Declared[m.decl]
			si, ti := b.entOf[m.src], b.entOf[m.tgt]
			if si == ti {
				continue
			}
			k := key{object: object, decl: d.Key, src: si, tgt: ti}
			if shown[k] { // two spellings of one pair
				continue
			}
			shown[k] = true
			if d.Kind == graph.DeclaredEvent {
				out = append(out, r.declaredFact(b, ex.Object, d, m.pair, si, ti, i, graph.DeclaredEvent))
				continue
			}
			prev, ok := open[k]
			if ok && len(out[prev].Closures) == 0 {
				continue // still shown: the same fact
			}
			f := r.declaredFact(b, ex.Object, d, m.pair, si, ti, i, graph.DeclaredState)
			if ok && f.RecordTime.Before(out[prev].Closures[0].RecordTime) {
				f.RecordTime = out[prev].Closures[0].RecordTime // a new period once the end of the last is known
			}
			open[k] = len(out)
			out = append(out, f)
		}
		said := map[string]bool{} // state declarations this snapshot gives values for (or none)
		for _, d := range ex.Declared {
			if d.Kind == graph.DeclaredState && d.Missing == "" {
				said[d.Key] = true
			}
		}
		for k, idx := range open {
			if k.object == object && said[k.decl] && !shown[k] {
				out[idx].Closures = append(out[idx].Closures, Closure{Episode: ep.UUID, At: ep.ReferenceTime.UTC(),
					RecordTime: r.env.RecordTimeOf(ep)})
			}
		}
	}
	return out
}

// declaredFact makes the fact of one declared pair first shown by episode i.
func (r *resolver) declaredFact(b built, object string, d graph.Declaration, p graph.DeclaredPair, si, ti, i int, kind string) Fact {
	ep := r.eps[i]
	src, tgt := b.entities[si], b.entities[ti]
	at := ep.ReferenceTime.UTC()
	text := strings.TrimSpace(p.Fact)
	return Fact{UUID: graph.DeclaredFactID(r.group, object, src.UUID, tgt.UUID, d.Relation, NormalizeFact(text), ep.UUID),
		Source: src.UUID, Target: tgt.UUID, Predicate: d.Relation, Fact: text, Kind: kind, ValidAt: &at,
		Episodes: []string{ep.UUID}, ReferenceTime: at, RecordTime: r.env.RecordTimeOf(ep), Order: i, Declared: true}
}
