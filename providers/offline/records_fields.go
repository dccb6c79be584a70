package offline

import (
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// recordPlan makes HAS_PLAN facts: the current plan from its effective date and, when the
// record names the previous plan, that plan closed at the same date.
func (ex *extractor) recordPlan(r record, lang, subj, subjType string) {
	plan, ok := r.get(aliasPlan...)
	if !ok {
		return
	}
	eff := ex.recordDate(r, lang, false, aliasEffect...)
	end := ex.recordDate(r, lang, true, aliasEnd...)
	s := recordSpan(ex.ref, eff, end)
	ex.add(draft{pred: "HAS_PLAN", lang: lang, subj: subj, subjType: subjType,
		obj: planName(plan, lang), objType: ex.objectType("HAS_PLAN"), span: &s})
	if prev, ok := r.get(aliasPrevPlan...); ok {
		closedAt := eff
		if closedAt == nil {
			closedAt = &ex.ref
		}
		c := span{kind: s.kind, until: eff, invalid: closedAt}
		if c.kind == wire.KindScheduledState {
			c.kind = wire.KindState
		}
		ex.add(draft{pred: "HAS_PLAN", lang: lang, subj: subj, subjType: subjType,
			obj: planName(prev, lang), objType: ex.objectType("HAS_PLAN"), span: &c})
	}
}

// recordStatus makes IS_OUT_OF_STOCK (until the restock date) or HAS_STATUS facts.
func (ex *extractor) recordStatus(r record, lang, subj, subjType string) {
	status, ok := r.get(aliasStatus...)
	if !ok {
		return
	}
	key := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(status))
	if !outOfStock[key] {
		s := recordSpan(ex.ref, nil, nil)
		ex.add(draft{pred: "HAS_STATUS", lang: lang, subj: subj, subjType: subjType,
			obj: strings.ReplaceAll(status, "_", " "), objType: "Entity", span: &s})
		return
	}
	restock := ex.recordDate(r, lang, true, aliasRestock...)
	if restock == nil {
		restock = ex.noteDate(r)
	}
	s := recordSpan(ex.ref, nil, restock)
	d := draft{pred: "IS_OUT_OF_STOCK", lang: lang, subj: subj, subjType: subjType, span: &s}
	if store, ok := r.get(aliasStore...); ok {
		d.obj, d.objType = store, ex.objectType("IS_OUT_OF_STOCK")
	} else {
		d.obj, d.objType, d.variant = map[string]string{"en": "out of stock", "ko": "품절"}[lang], "Entity", variantNoObject
	}
	ex.add(d)
}

// recordDate parses the first aliased field holding a date: RFC 3339, a plain date, or a date
// phrase in either language.
func (ex *extractor) recordDate(r record, lang string, forward bool, aliases ...string) *time.Time {
	for _, a := range aliases {
		v, ok := r.get(a)
		if !ok {
			continue
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			t = t.UTC()
			return &t
		}
		hits := scanDatesEN(v)
		if hasHangul(v) {
			hits = scanDatesKO(v)
		}
		if len(hits) > 0 {
			t := hits[0].at(ex.ref, forward)
			return &t
		}
	}
	return nil
}

// noteDate is the end date a free-text note states ("until Dec 25", "12월 25일까지").
func (ex *extractor) noteDate(r record) *time.Time {
	note, ok := r.get(aliasNote...)
	if !ok {
		return nil
	}
	hits := scanDatesEN(note)
	if hasHangul(note) {
		hits = scanDatesKO(note)
	}
	return resolveFirst(hits, ex.ref, true, roleEnd, roleBy)
}

// planName is the entity name of a plan: "Pro plan", "프로 요금제".
func planName(v, lang string) string {
	low := strings.ToLower(v)
	if lang == "ko" {
		if strings.Contains(v, "요금제") || strings.Contains(v, "플랜") {
			return v
		}
		return v + " 요금제"
	}
	if strings.Contains(low, "plan") {
		return v
	}
	return v + " plan"
}
