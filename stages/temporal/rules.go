package temporal

import (
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Fact kinds from extraction that the rules treat specially.
const (
	KindPlan           = wire.KindPlan
	KindScheduledState = wire.KindScheduledState
)

// RulesVersion names the behaviour of Normalize and Apply; it is part of the stage's unit
// fingerprint, so a change of the rules re-runs every group.
const RulesVersion = "rules-13"

// Judgement is the LLM's answer for facts[i], as indexes of earlier facts.
type Judgement struct {
	Duplicates     []int
	Contradictions []int
}

// Normalize applies the rules of a fact taken alone, as extracted (declared facts of record
// fields are left as they are). First what the sentence itself says, without the model (Kind,
// textdates.go):
//
//   - a plan by its words ("plans to", "is going to", "will", "예정"; a predicate PLANS_…) is a
//     plan whatever kind the model gave it, and a one-off event by its predicate (VISITED,
//     ATTENDED, BOUGHT, MET…) is an event;
//   - a range with full dates on both ends ("from June 1, 2015 to August 31, 2018") is the
//     state's valid_at and invalid_at, years included;
//   - an end the sentence states for a state ("until August 2018": the period's last day) is its
//     invalid_at, over any other date the model gave; a start it states ("since March 2",
//     "moved to Manchester on May 18", "moved to Bristol yesterday") is its valid_at when the
//     model gave none or the reference time (the prompt's default, which small models copy
//     instead of resolving the sentence's date);
//   - the day an event's sentence says it happened ("visited Paris on March 10", "yesterday"),
//     when the model gave none or the reference time, is its valid_at.
//
// Then the time rules: a plan (plan, promise, schedule, deadline) is valid from its reference
// time and ends when the date its sentence names for what is planned is over (a passed plan is
// no longer current: "by Friday (2024-04-19)" ends as April 20 begins), or stays open when it
// names none; an event is an instant (invalid_at = valid_at;
// with no valid_at, invalid_at is its reference time: it happened by then); a state the model
// left without dates started at its reference time (the prompt's default), so that closures work
// from it; no other fact but a scheduled state starts after the moment it was stated (its
// valid_at is clamped to the reference time); only states end in the future. An interval that
// ends before it starts is malformed: its valid_at is dropped, so the fact is kept (closed at its
// invalid_at) but never closes, nor is closed by, another fact.
//
// The dates of a state's or an event's sentence are read only when it names the fact's object
// (namesTarget; a name r does not know counts as named): a small model sometimes gives a fact the
// sentence of another message ("도윤 LIVES_IN 부산" with "2023년 12월 31일까지 삼성전자에서
// 일했어요"), whose dates are another relation's and would close or start this one. A plan's
// date is read whatever it names: "plans to resign at the end of next month (2024-05-31)" rarely
// names the employer it leaves.
func (r Rules) Normalize(f stages.ResolvedFact) stages.ResolvedFact {
	if f.Declared {
		return f
	}
	ref := f.ReferenceTime.UTC()
	f.Kind = Kind(f)
	var ds []textDate
	if f.Kind == KindPlan || r.namesTarget(f) {
		ds = textDates(f.Fact, ref, f.Kind == KindPlan)
	}
	switch f.Kind {
	case KindPlan:
		f.ValidAt, f.InvalidAt = &ref, nil
		if d, ok := planEnd(ds); ok && d.After(ref) {
			f.InvalidAt = ptr(d)
		}
		return f
	case wire.KindEvent:
		if d, ok := statedDay(ds); ok && !d.After(ref) && unstated(f.ValidAt, ref) {
			f.ValidAt = ptr(d)
		}
		if f.ValidAt != nil && f.ValidAt.After(ref) {
			f.ValidAt = &ref
		}
		f.InvalidAt = f.ValidAt
		if f.ValidAt == nil {
			f.InvalidAt = &ref
		}
		return f
	}
	if from, to, ok := statedRange(ds); ok {
		f.ValidAt, f.InvalidAt = ptr(from), ptr(to)
	} else if end, ok := statedEnd(ds); ok && f.Kind != KindScheduledState {
		f.InvalidAt = ptr(end)
	}
	if start, ok := statedStart(ds); ok && unstated(f.ValidAt, ref) && (f.InvalidAt == nil || start.Before(*f.InvalidAt)) {
		f.ValidAt = ptr(start)
	}
	if f.ValidAt == nil && f.InvalidAt == nil && isState(f) {
		f.ValidAt = &ref
	}
	if f.ValidAt != nil && f.ValidAt.After(ref) && f.Kind != KindScheduledState {
		f.ValidAt = &ref
	}
	if graph.Before(f.InvalidAt, f.ValidAt) {
		f.ValidAt = nil
	}
	return f
}

// unstated reports whether a model's valid_at says nothing the sentence does not: none, or the
// reference time itself (the prompt's default for a start not said).
func unstated(validAt *time.Time, ref time.Time) bool {
	return validAt == nil || validAt.Equal(ref)
}

// Apply computes the group's final facts and their version log from the normalized facts (in
// group order: reference time, then source order) and their judgements (judgements[i] names only
// indexes below i).
//
// Apply replays the facts in record-time order, one batch per distinct record time, and appends a
// version whenever a fact's interval as known changes, so the log's state at record time T is
// the result of the rules over the facts recorded by T:
//
//   - every contradicting pair with both valid_at known closes the earlier-starting fact at the
//     later one's valid_at, unless it already ends by then (①–④: the later-started fact wins,
//     whichever was heard first; intervals that do not overlap are left alone; equal starts go
//     to the fact later in group order, the correction). A fact's invalid_at is the earliest of
//     its own end and the starts of the facts that close it, so it never depends on the order
//     in which facts were heard, and it only moves earlier as more facts are known;
//   - a fact judged a duplicate of an earlier one is merged into it (episodes appended, the
//     earlier fact's end lowered to the duplicate's) while their intervals overlap or one start
//     is unknown; a duplicate that starts at or after the earlier fact's end is a new period of
//     the same statement and stays a fact of its own. Merges are decided on the facts known at
//     the time, and a fact once written to the log on its own is never merged later;
//   - a declared state fact is closed by each of its closures (stages.ResolvedFact.Closures: the later
//     snapshots that no longer show it) at the closure's reference time, from the closure's
//     record time on: the fact's invalid_at becomes the closure's time unless it already ends by
//     then, and a fact recorded after a closure's record time is recorded closed. The version
//     row names the closing episode (reason closed_by_record). Declared facts are never judged
//     and never contradict others;
//   - expired_at is the record time at which the fact was first recorded closed;
//   - before all that, withGroupRules adds what two facts settle without the model: a plan is
//     contradicted by the later event between the same two entities that it announced, and a
//     state repeating an earlier one of the same relation and object in another tense is its
//     duplicate.
//
// Under record_time: reference the record order is the group order, so a late-arriving episode
// gives the same facts and version log as if it had arrived in order.
func Apply(group string, facts []stages.ResolvedFact, judgements []Judgement) ([]graph.Fact, []graph.FactVersion) {
	w := newWalker(group, facts, withGroupRules(facts, judgements))
	for _, b := range recordBatches(facts) {
		w.record(b.facts, b.closures, b.at)
	}
	return w.output()
}

// output builds the final facts (roots of the last view, in group order) and their versions.
func (w *walker) output() ([]graph.Fact, []graph.FactVersion) {
	roots, versions := 0, 0
	for i := range w.facts {
		if w.root[i] == i {
			roots, versions = roots+1, versions+len(w.versions[i])
		}
	}
	out := make([]graph.Fact, 0, roots)
	vs := make([]graph.FactVersion, 0, versions)
	for i, f := range w.facts {
		if w.root[i] != i {
			continue
		}
		cur := w.view[i]
		g := graph.Fact{UUID: f.UUID, GroupID: w.group, SourceUUID: f.Source, TargetUUID: f.Target, Name: f.Predicate,
			Fact: f.Fact, Episodes: append([]string(nil), f.Episodes...), CreatedAt: f.RecordTime.UTC(),
			ExpiredAt: w.pub[i].expired, ValidAt: cur.valid, InvalidAt: cur.invalid, ReferenceTime: f.ReferenceTime.UTC()}
		for _, j := range w.members[i] {
			g.Episodes = appendMissing(g.Episodes, w.facts[j].Episodes)
		}
		out = append(out, g)
		vs = append(vs, w.versions[i]...)
	}
	return out, vs
}

func ptr(t time.Time) *time.Time { t = t.UTC(); return &t }

func appendMissing(dst, src []string) []string {
	have := map[string]bool{}
	for _, s := range dst {
		have[s] = true
	}
	for _, s := range src {
		if !have[s] {
			dst = append(dst, s)
			have[s] = true
		}
	}
	return dst
}
