// Package temporal is the temporal stage: one unit per group. It finds each fact's contradiction
// candidates among the earlier facts of its group (same unordered endpoint pair, or one shared
// endpoint in the same role with the same predicate — never the whole group) and sorts them by
// the relation's cardinality (the ontology's edge_types[].cardinality over DefaultCardinalities;
// relations not named are many):
//
//   - a fact of a relation of cardinality one from the same source with another target is
//     contradicted with no LLM call (the time rules below then close the earlier-started one);
//   - the judge may still close a candidate only when some answer could pass the cardinality
//     rule: two states of the same relation between the same two entities, or an explicit
//     negation, a cue of negation.go that the new sentence adds ("left Acme", "no longer likes
//     tea", "over green tea") and, for a fact between other entities, the name of the old fact's
//     other entity in the new sentence. Events and plans are never closed by another of their
//     kind without such a cue, and a plan closes nothing but an earlier plan ("plans to resign"
//     does not end "works at Naver"; neither fact of a cardinality-one pair may be a plan). Only these candidates are shown (ids I…), with the facts between
//     the same two entities for duplicates (ids E…); a fact with none needs no judge call.
//
// One judgement per fact left with candidates runs (all in parallel). Malformed, unknown or
// repeated duplicate ids are ignored. Each claimed contradiction carries a quote, the words of the
// new sentence that rule the old fact out; it is applied only when the quote is a part of the new
// sentence that the old sentence does not contain, it names a listed I id once, the answer does
// not also call the fact a duplicate, and the pair passes the cardinality rule with the quote in
// place of the sentence. Every claim not applied is counted by reason (Reject…). The group's
// Counts (facts judged, judge calls saved, contradictions by cardinality and judged, closures
// rejected) are stored as the unit's output; Totals sums them for the run report. A judgement
// whose answer stays bad decides nothing but the settled pairs. Then the time rules apply
// (docs/concepts.md states them for users):
//
//   - Normalize: first what the sentence says (a plan by its words or predicate, an event by
//     its predicate, a full-date range or a stated end of a state: Kind, textdates.go); then
//     plans, promises, schedules and deadlines are valid from the moment they were said and end
//     when the date they name is over (none named: no invalid_at); an event is an instant
//     (invalid_at = valid_at); a state without dates starts at its reference time; a statement
//     cannot start a fact after the moment it was made (valid_at is clamped to the reference
//     time), except a scheduled state; an interval that ends before it starts loses its
//     valid_at;
//   - group rules (withGroupRules): a plan is contradicted by the later fact between the same
//     two entities that it announced (the move ends "plans to move"); a state repeating an
//     earlier one of the same relation and object in another tense is its duplicate;
//   - ① a fact that arrives with invalid_at is recorded closed: expired_at = its record time;
//   - ② if a contradicting fact started later than the new one, the new one is closed at that
//     fact's valid_at;
//   - ③ an older contradicting fact (started earlier) is closed at the new fact's valid_at, with
//     expired_at = the record time at which it was first recorded closed;
//   - ④ facts whose intervals do not overlap never close each other, and nothing closes when
//     either valid_at is unknown; on equal valid_at the fact later in group order wins.
//
// Declared facts (stages.ResolvedFact.Declared, from record fields) are never judged and are nobody's
// candidate. A declared state fact is closed by each of its Closures at the closing snapshot's
// reference time, from that snapshot's record time on (expired_at: the first time it was known
// closed), with a version row naming the closing episode (reason closed_by_record); a fact
// recorded after a closure was recorded is recorded closed, and a closing snapshot that arrives
// late ends the fact earlier from its own record time on. So `query --known-at` between two snapshots still shows the fact open. (Deterministic
// closures and the LLM's contradictions meet only in the interval arithmetic: the earliest end
// wins.)
//
// Together ②–④ make a fact's invalid_at the earliest of its own end and the valid_at of every
// contradicting fact that started after it: a pure function of the set of facts, independent of
// the order in which they were heard. Facts judged duplicates of an earlier fact are merged into
// it (episodes appended) while their intervals overlap; a duplicate starting after the earlier
// fact ended is a new period and stays its own fact.
//
// Apply replays the group in record-time order and appends a row to the fact version log every
// time a fact's interval as known changes (with its graph.Reason…), so graph.AsOf answers "which
// facts were true at T, as the system knew at T′" exactly. The unit writes the group's facts and version log as a whole; under
// record_time: reference a late-arriving episode, which sorts into its place by reference time,
// gives the same facts, intervals and version log as if it had arrived in order.
//
// Batch mode: 2 waves (every judgement of every group at once, then the rules and the commit).
package temporal
