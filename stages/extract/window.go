package extract

import (
	"hash/fnv"
	"slices"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
)

// Windowed reports whether the options extract messages and texts in windows (Options.Window
// above 1) rather than one call per episode.
func (o Options) Windowed() bool { return o.Window > 1 }

// maxWindow is the most episodes a window holds: three times Options.Window, which about one
// window in twenty reaches (e⁻³ of them, cut points being one episode in Window).
func (o Options) maxWindow() int { return 3 * o.Window }

// windowed reports whether an episode is extracted in a window when the options are windowed:
// messages and texts are; JSON (source json, with or without a graph.Record) keeps its own unit.
func windowed(ep graph.Episode) bool { return ep.Record == nil && ep.Source != graph.SourceJSON }

// Windows splits the messages and texts of a group (windowed; JSON keeps its own units), in group
// order, into extraction windows: runs of consecutive such episodes, each listed by its index in
// eps. A window closes after an episode when
//   - the episode is a cut point: the FNV-1a hash of its uuid is 0 modulo Options.Window, one
//     episode in Window on average (cut);
//   - the window holds maxWindow episodes, or the next episode's content would take its
//     content past Options.WindowTokens (wire.EstimateTokens; 0: no bound);
//   - the next episode starts a new session: another source or source description, or a
//     reference time at least Options.WindowGap later (0: no gap closes a window).
//
// Each rule reads only the window so far and the next episode, so the boundaries are a
// function of the episodes alone (the same in every run, shard and resume), and an episode
// appended to a group changes only the group's last window, when it joins it. Cut points
// depend on the episode itself, not on its position: an episode inserted, late, inside a
// window, or forgotten from one, changes that window only (or joins it with the next, when the
// forgotten one was its cut point), except when the change moves a window's end that the size
// or token bound set, which moves the ends after it up to the next cut point or session break.
func Windows(eps []graph.Episode, o Options) [][]int {
	var out [][]int
	var cur []int
	tokens := 0
	for i, ep := range eps {
		if !windowed(ep) {
			continue
		}
		n := wire.EstimateTokens(ep.Content)
		if len(cur) > 0 && o.closes(eps[cur[len(cur)-1]], ep, len(cur), tokens+n) {
			out = append(out, cur)
			cur, tokens = nil, 0
		}
		cur = append(cur, i)
		tokens += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// closes reports whether a window of size episodes ending with last closes before next, whose
// content would bring the window's content to tokens.
func (o Options) closes(last, next graph.Episode, size, tokens int) bool {
	return cut(last.UUID, o.Window) || size >= o.maxWindow() ||
		(o.WindowTokens > 0 && tokens > o.WindowTokens) ||
		last.Source != next.Source || last.SourceDescription != next.SourceDescription ||
		(o.WindowGap > 0 && next.ReferenceTime.Sub(last.ReferenceTime) >= o.WindowGap)
}

// cut reports whether the episode of id uuid is a cut point for windows of w episodes on
// average: its FNV-1a hash is 0 modulo w (every episode is one when w is 1 or less).
func cut(uuid string, w int) bool {
	if w <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(uuid))
	return h.Sum64()%uint64(w) == 0
}

// windowInput is the input of a window's call: the context before its first episode (as the
// first episode's own input shows it, first.Previous) and its episodes, numbered from 1, each
// leaving out the reference time and source of the episode before.
func windowInput(eps []graph.Episode, idx []int, first wire.ExtractInput, o Options) wire.WindowInput {
	in := wire.WindowInput{EntityTypes: o.EntityTypes, EdgeTypes: o.EdgeTypes, ExcludedTypes: o.ExcludedTypes,
		Previous: first.Previous, Episodes: make([]wire.WindowEpisodeIn, len(idx))}
	var ref, src string
	for k, i := range idx {
		e := episodeIn(eps[i])
		w := wire.WindowEpisodeIn{N: k + 1, Speaker: e.Speaker, Content: e.Content}
		if e.ReferenceTime != ref {
			w.ReferenceTime, ref = e.ReferenceTime, e.ReferenceTime
		}
		if e.Source != src {
			w.Source, src = e.Source, e.Source
		}
		in.Episodes[k] = w
	}
	return in
}

// Repairs of a window's answer (besides the hygiene rules each episode's share passes).
const (
	RepairUncited   = "fact_cite_guessed" // a fact listed under no episode of the window: given the episode naming most of its endpoints, else the last asked
	RepairUnplaced  = "entity_unplaced"   // an entity no episode names, speaks or has a fact about: given the window's first asked episode
	windowRepairVer = "2"
)

// split shares a window's answer among its episodes: each fact goes to the episode it is listed
// under (wire.WindowOutput.Cited; a fact under a number not in the window to the episode whose
// speaker or content names most of its endpoints, else the last episode asked); each entity to every episode that it
// speaks, whose content names it (mentions) or that has a fact naming it (an entity none of
// these places, to the first episode asked). Each episode's share then passes the hygiene rules
// (repair) with the episode's own input, plans[k].Input, as the episode would alone: so a fact
// whose sentence repeats an earlier episode of the window rather than the cited one is cited to
// that one (Output.Quoted). The repairs are counted.
func split(ans wire.WindowOutput, plans []Plan) ([]Output, Repairs) {
	n := len(plans)
	rep := Repairs{}
	facts := make([][]wire.ExtractedFact, n)
	for _, f := range ans.Cited() {
		var ks []int
		for _, c := range f.Cites {
			if c >= 1 && c <= n && !slices.Contains(ks, c-1) {
				ks = append(ks, c-1)
			}
		}
		if len(ks) == 0 {
			rep[RepairUncited]++
			ks = []int{guessCite(f, plans)}
		}
		slices.Sort(ks)
		for _, k := range ks {
			facts[k] = append(facts[k], f.ExtractedFact)
		}
	}
	ents := make([][]wire.EntityMention, n)
	for _, e := range ans.Entities {
		placed := false
		for k, p := range plans {
			if names(p.Input.Episode, e.Name) || endpointOf(facts[k], e.Name) {
				ents[k] = append(ents[k], e)
				placed = true
			}
		}
		if !placed && fold(e.Name) != "" {
			rep[RepairUnplaced]++
			k := firstAsked(plans)
			ents[k] = append(ents[k], e)
		}
	}
	outs := make([]Output, n)
	for k, p := range plans {
		var r Repairs
		outs[k], r = repair(Output{Entities: ents[k], Facts: facts[k]}, p.Input)
		for kind, c := range r {
			rep[kind] += c
		}
	}
	return outs, rep
}

// names reports whether an episode speaks or names an entity of that name.
func names(ep wire.EpisodeIn, name string) bool {
	k := fold(name)
	return k != "" && (fold(ep.Speaker) == k || mentions(ep.Content, name))
}

// endpointOf reports whether one of facts names the entity as its subject or object.
func endpointOf(facts []wire.ExtractedFact, name string) bool {
	k := fold(name)
	for _, f := range facts {
		if fold(f.Source) == k || fold(f.Target) == k {
			return true
		}
	}
	return false
}

// guessCite is the episode of a fact listed under no episode of the window: the one that speaks or names
// most of its endpoints (the first of equal ones), else the last episode asked.
func guessCite(f wire.WindowFact, plans []Plan) int {
	best, score := -1, 0
	for k, p := range plans {
		s := 0
		for _, end := range []string{f.Source, f.Target} {
			if names(p.Input.Episode, end) {
				s++
			}
		}
		if s > score {
			best, score = k, s
		}
	}
	if best >= 0 {
		return best
	}
	for k := len(plans) - 1; k >= 0; k-- {
		if plans[k].Ask {
			return k
		}
	}
	return len(plans) - 1
}

// firstAsked is the first episode of a window that asks on its own, else the first.
func firstAsked(plans []Plan) int {
	for k, p := range plans {
		if p.Ask {
			return k
		}
	}
	return 0
}
