package temporal

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// planWords are the words of a sentence that make its fact a plan, an intention or a promise,
// whatever kind the model gave it: "Emma will move to Manchester" is no LIVES_IN yet.
var planWords = regexp.MustCompile(`(?i)\b(plans?|planning|planned|intends?|intending|hopes?)\s+to\b|\b(is|are|am|'s|'re|'m)\s+going\s+to\b|\bwill\b|\bgonna\b|예정|계획|할\s*거|기로\s*했`)

// planPredicate reports a predicate that names a plan: PLANS_TO…, PLAN_TO…, INTENDS_TO…,
// WILL_….
func planPredicate(p string) bool {
	for _, pre := range []string{"PLANS_", "PLAN_", "PLANNING_", "INTENDS_", "WILL_", "GOING_TO"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// eventPredicates are relations that happen once: a visit, a purchase, a meeting. A fact of
// one is an event, an instant, whatever kind the model gave it.
var eventPredicates = map[string]bool{
	"VISITED": true, "WENT_TO": true, "TRAVELED_TO": true, "TRAVELLED_TO": true, "ATTENDED": true,
	"BOUGHT": true, "PURCHASED": true, "MET": true, "MET_WITH": true, "ORDERED": true,
	"COMPLETED": true, "FINISHED": true, "WON": true, "GRADUATED_FROM": true,
}

// statePredicates are relations that hold over time: where one lives and works, whom one is
// married to, what one prefers, likes or owns. A fact of one the model called an event is a
// state: an instant would close it the moment it starts ("민서 PREFERS 라떼" answered as an
// event by a 1.5B model).
var statePredicates = map[string]bool{
	"PREFERS": true, "LIKES": true, "LOVES": true, "DISLIKES": true, "HATES": true, "ENJOYS": true,
	"OWNS": true, "HAS_PET": true, "IS_ALLERGIC_TO": true, "KNOWS": true, "FRIENDS_WITH": true,
	"IS_FRIENDS_WITH": true, "STUDIES_AT": true, "IS_MEMBER_OF": true, "MEMBER_OF": true,
}

// holdsOverTime reports a predicate of statePredicates or defaultOne, tense aside (WORKED_AT is
// WORKS_AT).
func holdsOverTime(p string) bool {
	p = tenseFree(p)
	return statePredicates[p] || slices.Contains(defaultOne[:], p)
}

// Kind is the kind the rules treat a fact as: a plan by its predicate or by the words of its
// sentence, an event by its predicate, a state by its predicate (of statePredicates or
// defaultOne) when the model called it an event, else the kind the model gave (states and
// scheduled states as given; a plan's words win over a model's "state" or "event").
func Kind(f stages.ResolvedFact) string {
	switch {
	case f.Kind == KindPlan || f.Kind == KindScheduledState:
		return f.Kind
	case planPredicate(f.Predicate) || planWords.MatchString(f.Fact):
		return KindPlan
	case eventPredicates[f.Predicate]:
		return wire.KindEvent
	case f.Kind == wire.KindEvent && holdsOverTime(f.Predicate):
		return wire.KindState
	}
	return f.Kind
}
