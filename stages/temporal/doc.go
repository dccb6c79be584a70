// Package temporal is the temporal stage: one unit per group. It finds each fact's contradiction
// candidates among the earlier facts of its group (same unordered endpoint pair, or one shared
// endpoint in the same role with the same predicate — never the whole group), asks the LLM for one
// judgement per fact with candidates (all in parallel), then applies the rules of DESIGN §6.4
// walking the group in order:
//
//   - plans, promises, schedules and deadlines are valid from the moment they were said, with no
//     invalid_at; a statement cannot start a fact after the moment it was made (except a
//     scheduled state);
//   - ① a fact that arrives with invalid_at is recorded closed: expired_at = its record time;
//   - ② if a contradicting fact started later than the new one, the new one is closed at that
//     fact's valid_at;
//   - ③ an older contradicting fact (started earlier) is closed at the new fact's valid_at, with
//     expired_at = the new fact's record time;
//   - ④ facts whose intervals do not overlap never close each other, and nothing closes when
//     either valid_at is unknown.
//
// Facts judged duplicates of an earlier fact are merged into it (their episodes appended). Every
// change to a fact's invalid_at/expired_at appends a row to the fact version log. The unit writes
// the group's facts and version log as a whole, so a late-arriving episode, which sorts into its
// place by reference time, gives the same intervals as if it had arrived in order.
package temporal
