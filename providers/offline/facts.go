package offline

import (
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// mode is how a statement bears on time.
type mode int

const (
	modeState     mode = iota // an ongoing state, true from its stated start or the reference time
	modeStart                 // the start of a state ("joined", "moved to", "입사했어요")
	modeClose                 // the end of a state ("left", "used to", "그만뒀어요")
	modePast                  // a past-tense state ("lived in … since 2023")
	modeEvent                 // a one-off event ("visited")
	modePlan                  // a plan, promise, schedule or deadline
	modeScheduled             // a state whose start is fixed in the future (records only)
)

// span is the interval and kind of a fact, and the dates its sentence states.
type span struct {
	valid, invalid *time.Time
	kind           string
	since, until   *time.Time // explicit dates, written into the sentence
	plan           *time.Time // the date of a plan, written into the sentence
	planRole       role
}

// interval applies the date rules (the time rules, docs/concepts.md) to a statement of mode m
// with its date phrases.
func interval(m mode, hits []dateHit, ref time.Time) span {
	r := ref.UTC()
	get := func(forward bool, roles ...role) *time.Time { return resolveFirst(hits, r, forward, roles...) }
	s := span{kind: wire.KindState}
	switch m {
	case modeState:
		s.since, s.until = get(false, roleStart, rolePoint), get(true, roleEnd, roleBy)
		s.valid, s.invalid = s.since, s.until
	case modeStart:
		s.since, s.until = get(false, rolePoint, roleStart), get(true, roleEnd)
		s.valid, s.invalid = s.since, s.until
	case modeClose:
		s.since, s.until = get(false, roleStart), get(false, rolePoint, roleEnd, roleBy)
		s.valid, s.invalid = s.since, s.until
		if s.invalid == nil {
			s.invalid = &r // no longer true when said
		}
	case modePast:
		s.since, s.until = get(false, roleStart, rolePoint), get(false, roleEnd, roleBy)
		s.valid, s.invalid = s.since, s.until
		if s.since == nil && s.until == nil {
			s.invalid = &r // over by the time it was said, start unknown
		}
	case modeEvent:
		s.kind = wire.KindEvent
		s.since = get(false, rolePoint, roleStart)
		s.valid = s.since
	case modePlan:
		s.kind = wire.KindPlan
		if len(hits) > 0 {
			t := hits[0].at(r, true)
			s.plan, s.planRole = &t, hits[0].role
		}
		s.valid = &r
	}
	if s.valid == nil && m != modeClose && m != modePast {
		s.valid = &r
	}
	if s.valid != nil && s.valid.After(r) { // a statement cannot start a fact after it was made
		s.valid, s.since = &r, nil
	}
	if s.invalid != nil && s.valid != nil && s.invalid.Before(*s.valid) {
		s.valid, s.since = nil, nil
	}
	return s
}

// closed reports whether the fact had ended when it was stated.
func (s span) closed(ref time.Time) bool { return s.invalid != nil && !s.invalid.After(ref) }

// qualifier is the parenthesised date note of a fact sentence.
func (s span) qualifier(lang string) string {
	d := func(t *time.Time) string { return t.UTC().Format(time.DateOnly) }
	if s.kind == wire.KindPlan {
		if s.plan == nil {
			return ""
		}
		deadline := s.planRole == roleBy || s.planRole == roleEnd
		switch {
		case lang == "ko" && deadline:
			return d(s.plan) + "까지"
		case deadline:
			return "by " + d(s.plan)
		}
		return d(s.plan)
	}
	if s.kind == wire.KindEvent {
		if s.since == nil {
			return ""
		}
		return d(s.since)
	}
	switch {
	case s.since != nil && s.until != nil && lang == "ko":
		return d(s.since) + "부터 " + d(s.until) + "까지"
	case s.since != nil && s.until != nil:
		return "since " + d(s.since) + " until " + d(s.until)
	case s.since != nil && lang == "ko":
		return d(s.since) + "부터"
	case s.since != nil:
		return "since " + d(s.since)
	case s.until != nil && lang == "ko":
		return d(s.until) + "까지"
	case s.until != nil:
		return "until " + d(s.until)
	}
	return ""
}

// draft is a fact before its entities are registered and its sentence written.
type draft struct {
	pred, lang, variant string
	mode                mode
	subj, obj           string
	subjType, objType   string
	parts               factParts // Y, C and V; S and O are filled in from subj and obj
	hits                []dateHit
	span                *span // set by callers that compute the interval themselves
}

// add registers the draft's entities and appends its fact, unless it is a self-loop or a repeat.
func (ex *extractor) add(d draft) {
	if d.subj == "" || d.obj == "" {
		return
	}
	src := ex.ents.add(d.subj, d.subjType)
	tgt := ex.ents.add(d.obj, d.objType)
	if src == "" || tgt == "" || normName(src) == normName(tgt) {
		return
	}
	var s span
	if d.span != nil {
		s = *d.span
	} else {
		s = interval(d.mode, d.hits, ex.ref)
	}
	p := d.parts
	p.S, p.O = src, tgt
	past := s.closed(ex.ref) || d.mode == modePast // "lived in … since 2021" keeps its tense
	text := renderFact(d.pred, d.lang, d.variant, past, p, s.qualifier(d.lang))
	key := d.pred + "\x00" + src + "\x00" + tgt + "\x00" + text
	if ex.seen[key] {
		return
	}
	ex.seen[key] = true
	ex.facts = append(ex.facts, wire.ExtractedFact{
		Source: src, Target: tgt, Predicate: d.pred, Fact: text,
		ValidAt: ex.stamp(s.valid), InvalidAt: ex.stamp(s.invalid), Kind: s.kind,
	})
}

// stamp formats a time as RFC 3339 UTC; nil, or any time when the reference time is unknown,
// gives null.
func (ex *extractor) stamp(t *time.Time) *string {
	if t == nil || !ex.hasRef {
		return nil
	}
	v := t.UTC().Format(time.RFC3339)
	return &v
}
