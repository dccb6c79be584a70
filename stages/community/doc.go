// Package community is the community stage: one unit per group, a full recompute each time the
// group's inputs changed, and Propagate, the label propagation it runs.
//
// # The stage
//
// Run makes one unit per group. Its fingerprint chains the embed stage's fingerprint of the
// group (which chains every upstream stage, so it changes exactly when the group's graph does),
// the merge and naming prompt versions, the chat and embedding models, the options and the
// algorithm version; a group whose fingerprint is unchanged is skipped without reading its graph
// or calling the LLM. A unit:
//
//  1. streams the group's entities and facts from the store, keeping only uuids, creation times
//     and one 12-byte edge per fact (weight 1, so a pair's weight is its number of facts; with
//     OnlyValid only facts with neither invalid_at nor expired_at count). Entities are numbered
//     in uuid order, so the numbering, and with it the partition, does not depend on the order
//     anything is listed in;
//  2. runs Propagate and keeps communities of at least MinSize members (default 2);
//  3. picks, per community, the MaxSummarized members with the most facts (default 16), reads
//     their names and summaries, and merges them MergeFanIn at a time (default 4; 2 is
//     Graphiti's pairwise merge), round after round (a last run of one moves on), all merges of
//     a round over all the group's communities in parallel, at most
//     Concurrency at once; every call goes through the LLM client, which caches it by content,
//     so a community whose leaves did not change costs no tokens on a re-run;
//  4. names each community in one line from its summary (its first leaves' names when the
//     summary or the answer is empty), embeds the names in one request;
//  5. replaces the group's communities as a whole, with the unit's record, in one transaction.
//     A community's uuid is graph.CommunityID(group, members), its members (the HAS_MEMBER
//     edges the sinks write) are sorted uuids, and its created_at is its latest member's.
//
// Batch mode: one wave per merge round (the rounds of every community of every group run in
// the same waves: 2 for 16 leaves four at a time, 4 pairwise), one for the names, one for the name embeddings when the
// embedder sends batches, and the commit: up to 7 waves with the defaults.
//
// # Propagation and the tie problem
//
// Propagate is asynchronous label propagation in ascending id order: a node takes the label with
// the largest summed weight among its neighbours, keeps its own label when that is among the
// best, else takes the smallest best label. Each change strictly raises the weight inside
// communities, so it converges (synchronous propagation can oscillate forever; Graphiti issues
// #402, #1397), and MaxIterations caps the sweeps regardless. Only nodes whose neighbourhood
// changed are revisited, which gives the same result as full sweeps in a fraction of the time.
//
// Plain propagation with that tie rule merges two cliques joined by one edge when the edge lands
// on the first node visited in the second clique: that node's clique-mates still hold singleton
// labels, every label ties at weight 1 and the first clique's smaller label wins, then floods
// the second clique. Other visiting orders or tie rules only move the bad case elsewhere (and
// preferring small communities on ties fragments planted blocks badly); a modularity objective
// fixes it but merges small groups in large graphs (its resolution limit: 574 communities for
// the 4,000 blocks of the benchmark graph). The fix used here is structural: the first phase
// votes with embedded weights, where an edge that lies in a triangle (its two entities share a
// related entity) counts double. An edge that closes no triangle is what a bridge looks like,
// so it cannot outvote the edges inside a clique of three or more, in any position and under
// any numbering (tested for all bridge positions under several numberings). The second phase
// starts from those labels and votes with the plain fact counts, so the result is a fixed point
// of plain propagation as specified; it only regroups nodes the first phase left on the wrong
// side by a margin. Communities whose members are not connected among themselves are split into
// their connected pieces. On planted-partition graphs this scores at least as well as plain
// propagation (NMI 0.84 against 0.66 at 40% noise, where plain propagation builds a few giant
// communities). The cost is one triangle pass (forward algorithm, O(m·√m) worst case, a hub costs
// only its degree) and a second, short phase.
//
// Memory and time are linear in the facts: adjacency in CSR arrays of int32 neighbours and
// float32 weights, per-node arrays for labels and scratch, about 70 bytes per fact at the peak
// (BenchmarkPropagate1M).
package community
