// Package community is the community stage: one unit per group, a full recompute each time the
// group's graph changed. It runs label propagation (Propagate: deterministic order and
// tie-breaking, an iteration cap, guaranteed termination) over the group's RELATES_TO facts,
// weighting each entity pair by the number of facts between them, keeps communities of at least
// MinSize members, summarizes each by pairwise map-reduce over its members' summaries (in
// parallel, every call cached), names it in one line, embeds the name, and replaces the group's
// communities as a whole.
package community
