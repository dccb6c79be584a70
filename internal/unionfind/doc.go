// Package unionfind is the project's disjoint-set forest (union-find with path compression and
// union by rank) over the ids 0..n-1. Its contract: Find names a set by its smallest id,
// whatever the order of the unions, so callers that number items in a stable order (mention
// order, group order) get deterministic representatives. Resolution clusters entities and
// facts with it; the temporal stage clusters the facts a walk links.
package unionfind
