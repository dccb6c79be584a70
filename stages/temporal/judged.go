package temporal

import (
	"slices"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Reasons a judged contradiction is not applied (temporal.closures_rejected in the run report).
const (
	RejectUnknownID     = "unknown_id"            // not an I id of the candidate list, or repeated
	RejectNoQuote       = "no_quote"              // no words of the new fact given as the reason
	RejectNotInNewFact  = "quote_not_in_new_fact" // the quote is not a part of the new fact's sentence
	RejectInOldFact     = "quote_in_old_fact"     // the old fact says the quoted words too: they exclude nothing
	RejectAlsoDuplicate = "also_duplicate"        // the same answer calls the fact a duplicate
	RejectCardinality   = "cardinality"           // neither the same relation between the same entities nor an explicit negation
)

// Rules are a group's contradiction rules: which relations have cardinality one, and the
// normalized names of the group's entities, by uuid.
type Rules struct {
	one   map[string]bool
	names map[string]string
	raw   map[string]string // the names as written, by uuid
}

// NewRules builds the rules from cardinalities by predicate (Cardinalities) and the group's
// entity names by uuid.
func NewRules(cardinalities map[string]string, names map[string]string) Rules {
	r := Rules{one: map[string]bool{}, names: make(map[string]string, len(names)), raw: names}
	for p, c := range cardinalities {
		if c == graph.CardinalityOne {
			r.one[p] = true
		}
	}
	for id, n := range names {
		r.names[id] = normText(n)
	}
	return r
}

// settles reports whether the new fact n contradicts the earlier fact o by cardinality alone: a
// relation of cardinality one, from the same source, to another target, neither fact a plan (a
// plan to work at Kakao does not end the current job; only the judge compares plans), and n's
// sentence names n's target (namesTarget).
func (r Rules) settles(n, o stages.ResolvedFact) bool {
	return r.one[n.Predicate] && n.Predicate == o.Predicate && n.Source == o.Source && n.Target != o.Target &&
		n.Kind != KindPlan && o.Kind != KindPlan && r.namesTarget(n)
}

// namesTarget reports whether a fact's sentence names its target (normalized, so a Korean
// particle after the name does not hide it), or cannot tell: no sentence, or no name known. A
// small model that answers "Since April 8 I'm on the platform team" with WORKS_AT a company of
// another message states a fact its sentence does not: it may stand, but it closes nothing by
// cardinality alone (the judge may still close with a quote).
func (r Rules) namesTarget(f stages.ResolvedFact) bool {
	name := r.names[f.Target]
	if name == "" || strings.TrimSpace(f.Fact) == "" {
		return true
	}
	return strings.Contains(normText(f.Fact), name)
}

// eligible reports whether some answer could close o for n under check (allowed, with the whole
// new sentence as the quote).
func (r Rules) eligible(n, o stages.ResolvedFact) bool {
	return r.allowed(n, o, normText(n.Fact), normText(o.Fact))
}

// allowed is the cardinality rule for a judged contradiction of o by n whose quote is q (all
// normalized): two states of the same relation between the same two entities; otherwise an
// explicit negation: the quote holds a negation cue that o's sentence lacks ("left Acme", "no
// longer likes tea") and, when o links other entities than n, it names o's entity that n lacks,
// and a comparison cue may serve too ("over green tea"). An event or a plan is never
// contradicted by another of its kind without such words: a second visit does not end the first,
// and a new plan replaces an old one only when it says so. A plan contradicts nothing but an
// earlier plan: "plans to resign" does not end "works at Naver" (a plan and the state it would
// change later; docs/concepts.md, "Contradictions").
func (r Rules) allowed(n, o stages.ResolvedFact, q, old string) bool {
	if n.Kind == KindPlan && o.Kind != KindPlan {
		return false
	}
	same := pairKey(n.Source, n.Target) == pairKey(o.Source, o.Target)
	if same && n.Predicate == o.Predicate && isState(n) && isState(o) {
		return true
	}
	if !newCue(q, old, !same) {
		return false
	}
	if same {
		return true
	}
	other := o.Target
	if other == n.Source || other == n.Target {
		other = o.Source
	}
	name := r.names[other]
	return name != "" && strings.Contains(q, name)
}

// isState reports whether f is an ongoing condition: kind state or scheduled_state (or no kind,
// as facts of older extractions have).
func isState(f stages.ResolvedFact) bool {
	return f.Kind == wire.KindState || f.Kind == wire.KindScheduledState || f.Kind == ""
}

// check returns why the judge's contradiction of facts[j] by facts[i] with quote must not be
// applied, or "" when it counts: the quote is a part of the new sentence that the old sentence
// does not contain, and the pair passes the cardinality rule (allowed).
func (r Rules) check(facts []stages.ResolvedFact, i, j int, quote string) string {
	q := normText(quote)
	if q == "" {
		return RejectNoQuote
	}
	if !strings.Contains(normText(facts[i].Fact), q) {
		return RejectNotInNewFact
	}
	old := normText(facts[j].Fact)
	if strings.Contains(old, q) {
		return RejectInOldFact
	}
	if !r.allowed(facts[i], facts[j], q, old) {
		return RejectCardinality
	}
	return ""
}

// Decode maps the judge's answer for facts[i] back to fact indexes. Malformed, unknown or
// repeated duplicate ids are ignored. Each claimed contradiction is checked (Rules.check, and
// it must name an I id of c once, of a fact the answer does not also call a duplicate); the
// Settled candidates are contradicted whatever the answer. rejected counts the claims not
// applied, by reason.
func (r Rules) Decode(facts []stages.ResolvedFact, i int, c Candidates, out wire.JudgeOutput) (j Judgement, rejected map[string]int) {
	j.Duplicates = pick(out.Duplicates, "E", c.Existing)
	j.Contradictions = append(j.Contradictions, c.Settled...)
	reject := func(reason string) {
		if rejected == nil {
			rejected = map[string]int{}
		}
		rejected[reason]++
	}
	seen := map[int]bool{}
	for _, con := range out.Contradictions {
		k, ok := lookup(con.ID, "I", c.Invalidation)
		switch {
		case !ok || seen[k]:
			reject(RejectUnknownID)
			continue
		case slices.Contains(j.Duplicates, k):
			reject(RejectAlsoDuplicate)
			continue
		}
		seen[k] = true
		if why := r.check(facts, i, k, con.Quote); why != "" {
			reject(why)
			continue
		}
		j.Contradictions = append(j.Contradictions, k)
	}
	return j, rejected
}
