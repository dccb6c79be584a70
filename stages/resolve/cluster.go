package resolve

import (
	"strings"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
)

// Fact is a resolved, de-duplicated fact of a group, before temporal rules apply.
type Fact struct {
	UUID          string     `json:"uuid"`
	Source        string     `json:"source"` // entity uuid
	Target        string     `json:"target"` // entity uuid
	Predicate     string     `json:"predicate"`
	Fact          string     `json:"fact"`
	Kind          string     `json:"kind"`
	ValidAt       *time.Time `json:"valid_at"`
	InvalidAt     *time.Time `json:"invalid_at"`
	Episodes      []string   `json:"episodes"` // the creating episode first
	ReferenceTime time.Time  `json:"reference_time"`
	RecordTime    time.Time  `json:"record_time"`
	Order         int        `json:"order"` // position of the creating episode in the group
}

// Result is the resolution of one group.
type Result struct {
	Entities []graph.Entity
	Mentions []graph.Mention
	Facts    []Fact
}

type mention struct {
	name, typ string
	episode   int
}

// Resolve clusters the mentions of a group's extractions (exs[i] belongs to eps[i], in group
// order) and maps facts to canonical entities.
func Resolve(env stages.Env, opts Options, group string, eps []graph.Episode, exs []llm.ExtractOutput) Result {
	// Unique normalized keys in order of first mention; each key's first spelling.
	keyIdx := map[string]int{}
	var keys []string
	var first []mention
	var mentions []mention
	add := func(name, typ string, ep int) {
		k := Normalize(name)
		if k == "" {
			return
		}
		if _, ok := keyIdx[k]; !ok {
			keyIdx[k] = len(keys)
			keys = append(keys, k)
			first = append(first, mention{name: strings.TrimSpace(name), typ: typ, episode: ep})
		}
		mentions = append(mentions, mention{name: k, typ: typ, episode: ep})
	}
	for i, ex := range exs {
		for _, e := range ex.Entities {
			add(e.Name, e.Type, i)
		}
		for _, f := range ex.Facts {
			add(f.Source, "", i)
			add(f.Target, "", i)
		}
	}
	uf := NewUnionFind(len(keys))
	if opts.MinHashThreshold < 1 {
		var idx []int
		var names []string
		for i, k := range keys {
			if !Ambiguous(k) {
				idx = append(idx, i)
				names = append(names, k)
			}
		}
		for _, p := range SimilarPairs(names, opts.MinHashThreshold) {
			uf.Union(idx[p[0]], idx[p[1]])
		}
	}
	// One entity per cluster, named after the cluster's earliest key (smallest index).
	entOf := make([]int, len(keys)) // key index → entity index
	var ents []graph.Entity
	rootEnt := map[int]int{}
	labels := map[int]map[string]bool{}
	for i := range keys {
		r := uf.Find(i)
		ei, ok := rootEnt[r]
		if !ok {
			ei = len(ents)
			rootEnt[r] = ei
			m := first[r]
			ents = append(ents, graph.Entity{UUID: graph.EntityID(group, keys[r]), GroupID: group, Name: m.name,
				CreatedAt: env.RecordTimeOf(eps[m.episode])})
			labels[ei] = map[string]bool{}
		}
		entOf[i] = ei
	}
	var ms []graph.Mention
	seen := map[string]bool{}
	for _, m := range mentions {
		ei := entOf[keyIdx[m.name]]
		if m.typ != "" && m.typ != "Entity" {
			labels[ei][m.typ] = true
		}
		ep := eps[m.episode]
		id := graph.MentionID(ep.UUID, ents[ei].UUID)
		if seen[id] {
			continue
		}
		seen[id] = true
		ms = append(ms, graph.Mention{UUID: id, GroupID: group, EpisodeUUID: ep.UUID, EntityUUID: ents[ei].UUID,
			CreatedAt: env.RecordTimeOf(ep)})
	}
	for ei := range ents {
		ents[ei].Labels = sortedKeys(labels[ei])
	}
	entityOf := func(name string) string { return ents[entOf[keyIdx[Normalize(name)]]].UUID }
	return Result{Entities: ents, Mentions: ms, Facts: dedupFacts(env, group, eps, exs, entityOf)}
}

func dedupFacts(env stages.Env, group string, eps []graph.Episode, exs []llm.ExtractOutput, entityOf func(string) string) []Fact {
	var out []Fact
	byID := map[string]int{}
	for i, ex := range exs {
		ep := eps[i]
		for _, f := range ex.Facts {
			if Normalize(f.Source) == "" || Normalize(f.Target) == "" || strings.TrimSpace(f.Fact) == "" {
				continue
			}
			src, tgt := entityOf(f.Source), entityOf(f.Target)
			if src == tgt {
				continue
			}
			pred := Predicate(f.Predicate)
			id := graph.FactID(group, src, tgt, pred, NormalizeFact(f.Fact))
			if j, ok := byID[id]; ok {
				if last := out[j].Episodes[len(out[j].Episodes)-1]; last != ep.UUID {
					out[j].Episodes = append(out[j].Episodes, ep.UUID)
				}
				continue
			}
			byID[id] = len(out)
			out = append(out, Fact{UUID: id, Source: src, Target: tgt, Predicate: pred, Fact: strings.TrimSpace(f.Fact),
				Kind: f.Kind, ValidAt: ParseDate(f.ValidAt), InvalidAt: ParseDate(f.InvalidAt), Episodes: []string{ep.UUID},
				ReferenceTime: ep.ReferenceTime.UTC(), RecordTime: env.RecordTimeOf(ep), Order: i})
		}
	}
	return out
}
