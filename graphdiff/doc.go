// Package graphdiff compares two finished graphs (`backfill diff`): typically the same input
// built twice, with two prompt versions, models or settings.
//
// Contract:
//   - Run reads both snapshots in group order side by side, one group of each in memory at a
//     time, and hands every changed group to emit as soon as it is compared; the Report keeps
//     only the totals and the Limit most important changes. Two identical graphs give an empty
//     diff; the same pair always gives the same diff (every list is sorted).
//   - Entities match by uuid, then by normalised name (namekey.Normalize) among the unmatched,
//     then through their mentions: an unmatched A entity went to the B entity that newly
//     appears in most of its episodes. Several A entities going to one B entity, or one going
//     to an entity that already has a counterpart, is a merge; one alone to an unmatched entity
//     is a rename with a new id; an unmatched B entity that took mentions of a matched A entity
//     is a split of it. Matched entities report name, label and summary changes.
//   - Facts match by uuid, then by their endpoints mapped through the entity match and their
//     predicate (the most similar sentence first). A matched pair reports sentence, valid_at,
//     invalid_at and expired_at changes, and "closed" (open in A, closed in B) or "reopened"
//     with the fact that closes it (sharing an endpoint, starting when it ends). Unmatched
//     facts are added or removed.
//   - Communities pair one to one by the Jaccard similarity of their members (A's mapped to B's
//     entities), highest first; pairs with other members are changed, the rest added or
//     removed.
//   - LLM calls, tokens and cost of each side come from its checkpoint store's runs table (every
//     run that opened the store records its report there): over all runs and for the last one,
//     with the last run's temporal counts (judge calls made and saved, contradictions, closures
//     rejected by reason), shown side by side with their change. A Parquet export or a graph
//     database's graph (Neo4j, Memgraph, FalkorDB: one Graphiti or backfill's loader wrote) has
//     none: the Report keeps each side's kind (snapshots.Snapshot.Kind) and Summary and
//     Markdown say which kind was read and that its usage is not compared.
//   - Report.Gold is set by the caller (`backfill diff --gold`): both graphs' gold scores
//     compared episode by episode (evaluation.CompareGold); Summary and Markdown show it.
//   - Importance, for the Markdown report: closures and reopenings, then interval changes,
//     merges and splits, facts added or removed, sentence changes, entity changes, communities,
//     labels and summaries. Each shown change carries the text of the episode behind each side.
package graphdiff
