package temporal

import (
	"maps"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// defaultOne are the relations shipped with cardinality one: the common predicates the
// extraction prompts suggest or the offline responder writes for a state a source has once at a
// time (an employer and a job title, a home, a spouse, a status, a subscription plan, a
// location, an account manager, a team, a date a thing is scheduled for), with their usual
// synonyms. Every other relation is many unless the job says otherwise.
var defaultOne = [...]string{
	"WORKS_AT", "WORKS_FOR", "EMPLOYED_AT", "EMPLOYED_BY", "WORKS_AS", "HAS_JOB_TITLE",
	"LIVES_IN", "RESIDES_IN",
	"MARRIED_TO", "ENGAGED_TO",
	"HAS_STATUS", "HAS_PLAN", "SUBSCRIBED_TO",
	"LOCATED_IN", "BASED_IN", "HEADQUARTERED_IN",
	"MANAGED_BY", "REPORTS_TO", "MEMBER_OF_TEAM",
	"SCHEDULED_FOR", "SCHEDULED_ON",
}

// DefaultCardinalities returns the shipped cardinalities: graph.CardinalityOne for each relation of
// defaultOne. A relation missing from the map is many.
func DefaultCardinalities() map[string]string {
	m := make(map[string]string, len(defaultOne))
	for _, p := range defaultOne {
		m[p] = graph.CardinalityOne
	}
	return m
}

// Cardinalities returns the shipped defaults with the job's cardinalities laid over them, keyed by
// predicate in SCREAMING_SNAKE_CASE (graph.Predicate); an empty value keeps the default.
func Cardinalities(job map[string]string) map[string]string {
	m := DefaultCardinalities()
	for name, c := range job {
		if c != "" {
			m[graph.Predicate(name)] = c
		}
	}
	return m
}

// cardinalityOne lists the relations of cardinality one, sorted, for the stage's key: a change
// of cardinality re-runs every group.
func cardinalityOne(m map[string]string) []string {
	one := []string{}
	for _, p := range slices.Sorted(maps.Keys(m)) {
		if m[p] == graph.CardinalityOne {
			one = append(one, p)
		}
	}
	return one
}
