package temporal

import (
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages/resolve"
)

// Fact kinds from extraction that the rules treat specially.
const (
	KindPlan           = "plan"
	KindScheduledState = "scheduled_state"
)

// Judgement is the LLM's answer for facts[i], as indexes of earlier facts.
type Judgement struct {
	Duplicates     []int
	Contradictions []int
}

// Normalize applies the future-tense rules to a fact as extracted: a plan is valid from its
// reference time and has no invalid_at; no other fact but a scheduled state starts after the
// moment it was stated.
func Normalize(f resolve.Fact) resolve.Fact {
	ref := f.ReferenceTime.UTC()
	if f.Kind == KindPlan {
		f.ValidAt, f.InvalidAt = &ref, nil
		return f
	}
	if f.ValidAt != nil && f.ValidAt.After(ref) && f.Kind != KindScheduledState {
		f.ValidAt = &ref
	}
	return f
}

type state struct {
	fact     graph.Fact
	versions []graph.FactVersion
	dup      int // index of the fact it merged into, or -1
}

// Apply walks the group's facts in order with their judgements and returns the final facts and
// the fact version log. facts must already be normalized and in group order; judgements[i] may
// name only indexes below i.
func Apply(group string, facts []resolve.Fact, judgements []Judgement) ([]graph.Fact, []graph.FactVersion) {
	st := make([]state, len(facts))
	for i, f := range facts {
		st[i].dup = -1
		cur := graph.Fact{UUID: f.UUID, GroupID: group, SourceUUID: f.Source, TargetUUID: f.Target, Name: f.Predicate,
			Fact: f.Fact, Episodes: append([]string(nil), f.Episodes...), CreatedAt: f.RecordTime,
			ValidAt: f.ValidAt, InvalidAt: f.InvalidAt, ReferenceTime: f.ReferenceTime}
		j := judgements[i]
		if len(j.Duplicates) > 0 {
			root := j.Duplicates[0]
			for st[root].dup >= 0 {
				root = st[root].dup
			}
			st[i].dup = root
			st[root].fact.Episodes = appendMissing(st[root].fact.Episodes, f.Episodes)
			continue
		}
		reason := "created"
		if cur.InvalidAt != nil { // ①
			cur.ExpiredAt = ptr(f.RecordTime)
			reason = "arrived_closed"
		}
		for _, c := range j.Contradictions {
			old := &st[c]
			if old.dup >= 0 || !overlap(old.fact, cur) {
				continue // ④
			}
			switch {
			case old.fact.ValidAt.After(*cur.ValidAt): // ②
				cur.InvalidAt, cur.ExpiredAt = ptr(*old.fact.ValidAt), ptr(f.RecordTime)
				reason = "closed_by_later_start"
			case old.fact.ValidAt.Before(*cur.ValidAt): // ③
				old.fact.InvalidAt, old.fact.ExpiredAt = ptr(*cur.ValidAt), ptr(f.RecordTime)
				old.versions = append(old.versions, version(old.fact, len(old.versions), f.RecordTime, f.Episodes[0], "closed_by_newer"))
			}
		}
		st[i].fact = cur
		st[i].versions = []graph.FactVersion{version(cur, 0, f.RecordTime, f.Episodes[0], reason)}
	}
	var out []graph.Fact
	var vs []graph.FactVersion
	for _, s := range st {
		if s.dup >= 0 {
			continue
		}
		out = append(out, s.fact)
		vs = append(vs, s.versions...)
	}
	return out, vs
}

// overlap reports whether two facts with known starts share any instant of validity.
func overlap(a, b graph.Fact) bool {
	if a.ValidAt == nil || b.ValidAt == nil {
		return false
	}
	aEndsFirst := a.InvalidAt != nil && !a.InvalidAt.After(*b.ValidAt)
	bEndsFirst := b.InvalidAt != nil && !b.InvalidAt.After(*a.ValidAt)
	return !aEndsFirst && !bEndsFirst
}

func version(f graph.Fact, seq int, at time.Time, episode, reason string) graph.FactVersion {
	return graph.FactVersion{FactUUID: f.UUID, GroupID: f.GroupID, Seq: seq, RecordTime: at, ValidAt: f.ValidAt,
		InvalidAt: f.InvalidAt, ExpiredAt: f.ExpiredAt, EpisodeUUID: episode, Reason: reason}
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
