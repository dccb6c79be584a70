package resolve

import (
	"slices"
	"strings"

	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// contextFacts is how many fact sentences per name are kept to show the LLM.
const contextFacts = 3

// names is the table of the distinct normalized names of a group, in order of first mention
// (index = key id), with every mention and the facts that survive the ontology's exclusions.
type names struct {
	keys     []string // normalized names
	index    map[string]int
	spell    []string   // spelling of each key's first mention
	first    []int      // episode (position in the group) of each key's first mention
	types    [][]string // distinct ontology types each key was given, in order of first use
	context  [][]string // a few fact sentences naming each key
	mentions []mention
	facts    []rawFact
	declared []declaredMention
}

// mention is one entity mention: a key in an episode, with its ontology type ("" when generic)
// and the attributes the episode stated.
type mention struct {
	key, episode int
	typ          string
	attrs        []wire.AttributeValue
}

// rawFact is one extracted fact with the keys of its endpoints.
type rawFact struct {
	episode  int
	src, tgt int
	fact     wire.ExtractedFact
}

// collect builds the name table of a group's extractions (exs[i] is the episode at position i).
// A mention of an excluded type is dropped, with every fact of its episode that names it; a fact
// endpoint the episode's entity list does not name is a generic mention. A fact the extraction
// cites to a previous episode (stages.Extraction.Quoted) is that episode's fact; the mentions of its
// endpoints stay the extracted episode's. The facts are in group order.
func collect(opts Options, exs []stages.Extraction) *names {
	n := &names{index: map[string]int{}}
	for i, ex := range exs {
		n.collectDeclared(opts, i, ex)
		listed := map[string]bool{}
		dropped := map[string]bool{}
		for _, e := range ex.Entities {
			k := namekey.Normalize(e.Name)
			switch {
			case k == "":
			case opts.excluded(e.Type):
				dropped[k] = true
			default:
				listed[k] = true
				n.add(k, strings.TrimSpace(e.Name), i, opts.entityType(e.Type), e.Attributes)
			}
		}
		quoted := map[int]int{}
		for _, q := range ex.Quoted {
			if q.Back > 0 && q.Back <= i {
				quoted[q.Fact] = i - q.Back
			}
		}
		for j, f := range ex.Facts {
			sk, tk := namekey.Normalize(f.Source), namekey.Normalize(f.Target)
			if sk == "" || tk == "" || strings.TrimSpace(f.Fact) == "" || dropped[sk] || dropped[tk] {
				continue
			}
			if (!listed[sk] || !listed[tk]) && opts.excluded("") {
				continue // generic entities are excluded and the episode did not type this endpoint
			}
			s := n.add(sk, strings.TrimSpace(f.Source), i, "", nil)
			t := n.add(tk, strings.TrimSpace(f.Target), i, "", nil)
			for _, k := range []int{s, t} {
				if len(n.context[k]) < contextFacts {
					n.context[k] = append(n.context[k], strings.TrimSpace(f.Fact))
				}
			}
			ep, ok := quoted[j]
			if !ok {
				ep = i
			}
			n.facts = append(n.facts, rawFact{episode: ep, src: s, tgt: t, fact: f})
		}
	}
	// A quoted fact belongs to an earlier episode: the facts go in group order.
	slices.SortStableFunc(n.facts, func(a, b rawFact) int { return a.episode - b.episode })
	return n
}

// add records a mention of key k and returns k's id.
func (n *names) add(k, spelling string, episode int, typ string, attrs []wire.AttributeValue) int {
	id, ok := n.index[k]
	if !ok {
		id = len(n.keys)
		n.index[k] = id
		n.keys = append(n.keys, k)
		n.spell = append(n.spell, spelling)
		n.first = append(n.first, episode)
		n.types = append(n.types, nil)
		n.context = append(n.context, nil)
	}
	if typ != "" && !slices.Contains(n.types[id], typ) {
		n.types[id] = append(n.types[id], typ)
	}
	n.mentions = append(n.mentions, mention{key: id, episode: episode, typ: typ, attrs: attrs})
	return id
}

// compatible reports whether two keys may name one entity by their types: either was never given
// a specific type, or they share one.
func (n *names) compatible(a, b int) bool {
	if len(n.types[a]) == 0 || len(n.types[b]) == 0 {
		return true
	}
	for _, t := range n.types[a] {
		if slices.Contains(n.types[b], t) {
			return true
		}
	}
	return false
}
