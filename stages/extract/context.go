package extract

import (
	"strconv"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/records"
)

// Bounds of a record's context.
const (
	MaxChanges     = 100 // change list lines; more are summarised in one last line
	MaxChangeRunes = 200 // per value
	MaxKnown       = 50  // known facts; more are summarised in one last line
)

// Group prepares the extraction units of one group's episodes (in group order).
type Group struct {
	eps  []graph.Episode
	opts Options
	prev []int // the previous snapshot of the same object of each episode, or -1
}

// Plan is what the unit of one episode does.
type Plan struct {
	Input wire.ExtractInput
	// Ask is false when the LLM is not asked; Skip then says why.
	Ask  bool
	Skip string
}

// Reasons a unit does not ask the LLM (Plan.Skip).
const (
	SkipLLMOff   = "llm_off"  // Options.NoLLM
	SkipCovered  = "covered"  // a record's changes are covered by its declared facts, or no text field changed
	SkipChitchat = "chitchat" // a chit-chat message (IsChitchat): its speaker is its only entity
)

// plan is the plan of an episode that asks unless the LLM is off.
func (g *Group) plan(in wire.ExtractInput) Plan {
	if g.opts.NoLLM {
		return Plan{Input: in, Skip: SkipLLMOff}
	}
	return Plan{Input: in, Ask: true}
}

// NewGroup prepares the episodes of one group, in group order (reference time, then source
// order), so a late record finds its predecessor by reference time.
func NewGroup(eps []graph.Episode, opts Options) *Group {
	g := &Group{eps: eps, opts: opts, prev: make([]int, len(eps))}
	last := map[string]int{}
	for i, ep := range eps {
		g.prev[i] = -1
		if ep.Record == nil || ep.Record.Object == "" {
			continue
		}
		if j, ok := last[ep.Record.Object]; ok {
			g.prev[i] = j
		}
		last[ep.Record.Object] = i
	}
	return g
}

// Plan builds the extraction of episode i.
//
// An episode without a Record gets the previous episodes of its group as context (Input) and is
// asked about unless it is a chit-chat message (IsChitchat, with the speakers of the episode and
// of the SpeakerWindow episodes before it as names) and Options.AskChitchat is off. A JSON record (an episode with a Record) gets no previous
// episodes; its declared facts are given as known facts, and when it is a snapshot of an object
// that has an earlier snapshot, the change list against that snapshot is its context (the first
// snapshot has none). Then:
//   - with text fields (json.text_fields), the LLM sees only the text fields whose value is new
//     or changed, and is asked only when there is one; changes of text fields are left out of
//     the change list, since the new text is the content;
//   - without, the LLM sees the whole (pruned) record, and is asked only when some change lies
//     outside the fields the declared facts read (a first snapshot: some field does).
func (g *Group) Plan(i int) Plan {
	ep := g.eps[i]
	if ep.Record == nil {
		in := Input(g.eps, i, g.opts)
		if !g.opts.NoLLM && !g.opts.AskChitchat && ep.Source == graph.SourceMessage && IsChitchat(ep.Content, g.speakers(i)) {
			return Plan{Input: in, Skip: SkipChitchat}
		}
		return g.plan(in)
	}
	rec := ep.Record
	in := wire.ExtractInput{Episode: episodeIn(ep), Previous: []wire.EpisodeIn{}, Known: known(rec),
		EntityTypes: g.opts.EntityTypes, EdgeTypes: g.opts.EdgeTypes, ExcludedTypes: g.opts.ExcludedTypes}
	cur, ok := records.Decode(ep.Content)
	if !ok { // a record of no JSON object body: nothing to compare
		return g.plan(in)
	}
	var prev map[string]any
	if j := g.prev[i]; j >= 0 {
		prev, _ = records.Decode(g.eps[j].Content)
	}
	changes := records.Diff(prev, cur)
	text := paths(rec.TextFields)
	var ask bool
	shown := changes
	if len(text) > 0 {
		var changed []string
		for _, p := range text {
			for _, c := range changes {
				if c.Sets(p) {
					changed = append(changed, p.String())
					break
				}
			}
		}
		ask = len(changed) > 0
		if ask {
			keep, _ := records.NewPruner(nil, changed, false, false)
			in.Episode.Content = records.Encode(keep.Prune(cur))
		}
		shown = nil
		for _, c := range changes {
			if !c.Within(text) {
				shown = append(shown, c)
			}
		}
	} else {
		covered := paths(rec.FactPaths)
		for _, c := range changes {
			if !c.Within(covered) {
				ask = true
				break
			}
		}
	}
	if j := g.prev[i]; j >= 0 && prev != nil {
		in.Snapshot = &wire.SnapshotIn{Object: rec.Object, PreviousAt: episodeIn(g.eps[j]).ReferenceTime,
			Changes: changeLines(shown)}
	}
	if !ask && !g.opts.NoLLM {
		return Plan{Input: in, Skip: SkipCovered}
	}
	return g.plan(in)
}

// SpeakerWindow is how many episodes before a message name the speakers IsChitchat reads as
// names.
const SpeakerWindow = 4

// speakers are the speakers of episode i and of the SpeakerWindow episodes before it.
func (g *Group) speakers(i int) []string {
	var out []string
	for _, ep := range g.eps[max(0, i-SpeakerWindow) : i+1] {
		if ep.Speaker != "" {
			out = append(out, ep.Speaker)
		}
	}
	return out
}

// known lists the sentences of a record's declared facts, at most MaxKnown.
func known(rec *graph.Record) []string {
	var out []string
	n := 0
	for _, d := range rec.Declared {
		for _, p := range d.Pairs {
			if n++; n <= MaxKnown {
				out = append(out, p.Fact)
			}
		}
	}
	if n > MaxKnown {
		out = append(out, "… and "+strconv.Itoa(n-MaxKnown)+" more")
	}
	return out
}

// changeLines writes at most MaxChanges changes, one per line.
func changeLines(changes []records.Change) []string {
	out := []string{}
	for k, c := range changes {
		if k == MaxChanges {
			out = append(out, "… and "+strconv.Itoa(len(changes)-k)+" more changes")
			break
		}
		out = append(out, c.Format(MaxChangeRunes))
	}
	return out
}

// paths parses stored paths; the loader wrote them, so they parse.
func paths(ss []string) []records.Path {
	out := make([]records.Path, 0, len(ss))
	for _, s := range ss {
		if p, err := records.ParsePath(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}
