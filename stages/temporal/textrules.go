package temporal

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/stages"
)

// endingWords end a text that says its subject's relation with what follows is over: "left",
// "quit", "moved out of", "no longer works at".
var endingWords = regexp.MustCompile(`(?i)\b(?:left|quit|leaves|leaving|resigned from|retired from|moved (?:out of|away from|from)|stopped working (?:at|for)|no longer (?:works?|lives?) (?:at|in|for))\s+(?:the\s+)?$`)

// koEnding starts the Korean text after a name that says the relation with it is over: the
// ending comes after the name and its particle ("카카오를 그만두고", "삼성전자에서 퇴사했어요",
// "판교에서 서울로 이사했어요"). koFuture marks a sentence that announces it instead ("그만둘
// 거예요", "퇴사할 예정이에요", "그만두고 싶어요"): a plan, not an end.
var (
	koEnding = regexp.MustCompile(`^\s*(?:을|를|에서|에서는|은|는)?\s*(?:그만두|그만뒀|관두|관뒀|퇴사|퇴직|떠나|떠났|나왔)|^\s*에서\s+(?:\S+?(?:으로|로)\s+)?이사`)
	koFuture = regexp.MustCompile(`거예요|거야|겁니다|것이다|예정|계획|려고|싶`)
)

// Ended reads a state whose own sentence says that its relation with its object is over ("I left
// Globex on March 29", "3월 2일에 카카오를 그만두고 네이버로 이직했어요", extracted as a fact about
// Globex or 카카오) as that end, not a start: its valid_at is unknown and its invalid_at is the
// date the sentence gives the end, or its reference time. The end's date is the first date after
// the object's name in English, where the date follows the verb; in Korean, where it comes
// first, the last date before the name, else the first after it. Other facts are returned as
// they are.
func (r Rules) Ended(f stages.ResolvedFact) stages.ResolvedFact {
	name := strings.ToLower(r.raw[f.Target])
	if f.Declared || !isState(f) || name == "" {
		return f
	}
	low := strings.ToLower(f.Fact)
	for from := 0; ; {
		i := strings.Index(low[from:], name)
		if i < 0 {
			return f
		}
		i += from
		after := i + len(name)
		english := endingWords.MatchString(low[:i])
		if english || (koEnding.MatchString(low[after:]) && !koFuture.MatchString(low)) {
			ref := f.ReferenceTime.UTC()
			f.ValidAt, f.InvalidAt = nil, &ref
			if d, ok := endDate(f.Fact, ref, i, after, !english); ok {
				f.InvalidAt = ptr(d)
			}
			return f
		}
		from = after
	}
}

// endDate is the day an ending sentence gives its end: the first date at or before ref that
// starts after the name (at byte offsets i to after), or with before also the last such date
// that ends before the name, which wins.
func endDate(sentence string, ref time.Time, i, after int, before bool) (time.Time, bool) {
	var found time.Time
	ok := false
	for _, d := range textDates(sentence, ref, false) {
		if d.day.After(ref) {
			continue
		}
		if before && d.end <= i {
			found, ok = d.day, true
			continue
		}
		if d.start >= after {
			if !ok {
				found, ok = d.day, true
			}
			break
		}
	}
	return found, ok
}

// withGroupRules adds to the judgements what two facts of a group settle without the model
// (facts normalized, in group order; declared facts take no part):
//
//   - a plan ends when the event it announces happens: a later fact that is not a plan, between
//     the same two entities ("Emma LIVES_IN Manchester" after "Emma PLANS_TO Manchester"), and
//     that starts after the plan started, contradicts it, so the walker closes the plan at that
//     fact's valid_at (unless its own date ended it earlier);
//   - two states of one relation and one object that differ only in tense or a date note ("works
//     at Kakao", "worked at Kakao (until 2024-03-02)") are one fact: the later is a duplicate of
//     the earliest, merged into it while their intervals overlap or a start is unknown.
//
// The judgements of the model are kept; the returned slice is a copy.
func withGroupRules(facts []stages.ResolvedFact, judgements []Judgement) []Judgement {
	out := make([]Judgement, len(facts))
	for i := range out {
		if i < len(judgements) {
			out[i] = Judgement{Duplicates: slices.Clone(judgements[i].Duplicates), Contradictions: slices.Clone(judgements[i].Contradictions)}
		}
	}
	first := map[string]int{} // source, tense-free predicate, target → earliest state fact
	for i, f := range facts {
		if f.Declared {
			continue
		}
		for j := range i {
			o := facts[j]
			if o.Declared || pairKey(f.Source, f.Target) != pairKey(o.Source, o.Target) {
				continue
			}
			plan, event := j, i
			if f.Kind == KindPlan {
				plan, event = i, j
			}
			p, e := facts[plan], facts[event]
			if p.Kind == KindPlan && e.Kind != KindPlan && p.ValidAt != nil && e.ValidAt != nil && e.ValidAt.After(*p.ValidAt) &&
				!slices.Contains(out[i].Contradictions, j) {
				out[i].Contradictions = append(out[i].Contradictions, j)
			}
		}
		if !isState(f) {
			continue
		}
		key := f.Source + "\x00" + tenseFree(f.Predicate) + "\x00" + f.Target
		j, ok := first[key]
		if !ok {
			first[key] = i
			continue
		}
		if len(out[i].Duplicates) == 0 && !slices.Contains(out[i].Contradictions, j) {
			out[i].Duplicates = []int{j}
		}
	}
	return out
}

// pastTense maps the past-tense first word of a predicate to its present: WORKED_AT and
// WORKS_AT are one relation.
var pastTense = map[string]string{"WORKED": "WORKS", "LIVED": "LIVES", "STUDIED": "STUDIES", "WAS": "IS", "WERE": "ARE",
	"HAD": "HAS", "OWNED": "OWNS", "RESIDED": "RESIDES", "BELONGED": "BELONGS", "LIKED": "LIKES", "PREFERRED": "PREFERS"}

// tenseFree is a predicate without "USED_TO_" and with its first word in the present tense.
func tenseFree(p string) string {
	p = strings.TrimPrefix(p, "USED_TO_")
	w, rest, _ := strings.Cut(p, "_")
	if pres, ok := pastTense[w]; ok {
		w = pres
	} else if w == "WORK" || w == "LIVE" {
		w += "S"
	}
	if rest == "" {
		return w
	}
	return w + "_" + rest
}
