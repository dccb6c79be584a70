// Package resolve is the resolve stage: one unit per group. It clusters every entity mention of
// the group's extractions (exact normalized name, then character 3-gram MinHash for names that
// pass the entropy gate), names each cluster after its earliest mention, writes the group's
// entities and mentions, maps every extracted fact to its canonical endpoints and de-duplicates
// facts with the same endpoints, predicate and normalized text. The de-duplicated facts, in group
// order, are the unit's output for the temporal stage.
//
// Nothing crosses groups: a unit reads and writes one group only.
package resolve
