package offline

import (
	"strings"
	"unicode/utf8"
)

// koSubject finds the subject in the text before a match: the speaker for first-person words, a
// name with 씨/님, or a known speaker's name with a subject particle; otherwise the current
// subject of the sentence, or the episode's fallback (Korean often omits the subject).
func (ex *extractor) koSubject(segment, current string) string {
	if reKoFirst.MatchString(segment) {
		return ex.fallback
	}
	if m := reKoHonorific.FindStringSubmatch(segment); m != nil && !koTitles[m[1]] {
		return ex.ents.add(m[1], ex.personType())
	}
	for _, tok := range strings.Fields(segment) {
		base := stripParticle(strings.Trim(tok, ",.!?~"))
		if base == tok {
			continue
		}
		if name, ok := ex.persons[normName(base)]; ok {
			return ex.ents.add(name, ex.personType())
		}
	}
	if current != "" {
		return current
	}
	return ex.fallback
}

// koPlan makes the PLANS_TO fact of a future-tense sentence: its object is the first rule
// match's, else the first noun with a particle, else the latest entity of the episode.
func (ex *extractor) koPlan(text string, hits []dateHit, matches []koMatch) {
	segment := text
	if len(matches) > 0 {
		segment = text[:matches[0].start]
	}
	subj := ex.koSubject(segment, "")
	if subj == "" {
		return
	}
	obj := ""
	if len(matches) > 0 {
		obj = matches[0].obj
	} else {
		obj = koFirstNoun(text, hits)
	}
	if obj == "" {
		obj = ex.ents.lastOther(subj)
	}
	var words []string
	for _, w := range strings.Fields(text) {
		if !koFirstPronoun[w] {
			words = append(words, w)
		}
	}
	ex.add(draft{pred: "PLANS_TO", lang: "ko", mode: modePlan, subj: subj, subjType: ex.personType(),
		obj: obj, objType: "Entity", parts: factParts{V: planPhrase(strings.Join(words, " "))}, hits: hits})
}

// koFirstNoun is the first word carrying a particle that is not a pronoun, a date or a filler.
func koFirstNoun(text string, hits []dateHit) string {
	off := 0
	for _, tok := range strings.Fields(text) {
		start := off + strings.Index(text[off:], tok)
		off = start + len(tok)
		inDate := false
		for _, h := range hits {
			if start < h.end && off > h.start {
				inDate = true
			}
		}
		w := strings.Trim(tok, ",.!?~\"'")
		base := stripParticle(w)
		if inDate || base == w || koFirstPronoun[w] || koStop[base] || !hasHangul(base) {
			continue
		}
		return base
	}
	return ""
}

// koFuture reports whether a Korean sentence states a plan, promise or deadline: a verb in ㄹ
// followed by 거예요/예정/계획/게요, a -려고 intention, or a deadline verb after 까지.
func koFuture(s string) bool {
	for _, marker := range []string{" 거예요", " 거에요", " 겁니다", " 거야", " 것입니다", " 거라", " 예정", " 계획", "게요", "께요"} {
		for i := strings.Index(s, marker); i >= 0; {
			r, _ := utf8.DecodeLastRuneInString(s[:i])
			if finalOf(r) == finalRieul {
				return true
			}
			next := strings.Index(s[i+len(marker):], marker)
			if next < 0 {
				break
			}
			i += len(marker) + next
		}
	}
	return strings.Contains(s, "려고 ") || strings.Contains(s, "려고요") || reKoDeadline.MatchString(s)
}
