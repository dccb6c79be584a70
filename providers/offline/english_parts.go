package offline

import "strings"

// enObject reads the object of a matched rule; ok is false when there is none.
func (ex *extractor) enObject(r enRule, text string, loc []int) (draft, bool) {
	d := draft{pred: r.pred, lang: "en", mode: r.mode, subjType: ex.personType(), objType: ex.objectType(r.pred)}
	group := func(name string) string {
		i := r.re.SubexpIndex(name)
		if i < 0 || loc[2*i] < 0 {
			return ""
		}
		return text[loc[2*i]:loc[2*i+1]]
	}
	rest := text[loc[1]:]
	switch r.obj {
	case objTeam:
		x := group("obj")
		first := strings.ToLower(strings.Fields(x)[0])
		if articles[first] || objectPronouns[first] {
			return d, false
		}
		d.obj = titleWords(x) + " team"
	case objName:
		d.obj = nameAfter(rest)
	case objNP:
		d.obj, _ = npAfter(rest)
	case objFavorite:
		d.variant, d.parts.C = variantFavorite, strings.ToLower(group("cat"))
		d.obj, _ = npAfter(rest)
	case objStock:
		d.subjType = ex.onto.pick(typesProduct...)
		if m := reAtPlace.FindStringIndex(rest); m != nil {
			d.obj = nameAfter(rest[m[1]:])
		}
		if d.obj == "" {
			d.obj, d.objType, d.variant = "out of stock", "Entity", variantNoObject
		}
	case objPrefer:
		var after string
		d.obj, after = npAfter(rest)
		if m := reContrast.FindStringIndex(after); m != nil && d.obj != "" {
			if y, _ := npAfter(after[m[1]:]); y != "" {
				d.variant, d.parts.Y = variantOver, ex.ents.add(y, "Entity")
			}
		}
	}
	return d, d.obj != ""
}

// enSubject resolves the subject of a clause from the text before its verb: the speaker for
// first-person words, a capitalised name, or — when the clause names none — the previous
// clause's subject or the episode's fallback subject. It returns "" for pronouns and other
// subjects that are not names.
func (ex *extractor) enSubject(pre string, st, prev *enState) string {
	kind, name := subjectEN(pre)
	switch kind {
	case subjSpeaker:
		st.subj = ex.fallback
	case subjName:
		st.subj = ex.ents.add(name, "")
	case subjNone:
		if len(st.hits) == 0 && prev != nil {
			st.hits = prev.hits
		}
		st.subj = ex.fallback
		if prev != nil && prev.subj != "" {
			st.subj = prev.subj
		}
	default:
		st.subj = ""
	}
	return st.subj
}

// enMode adjusts a rule's mode for negation, future and past tense; false means the clause
// states no fact ("I don't work at X").
func (ex *extractor) enMode(r enRule, pre, text string, d *draft) bool {
	m := r.mode
	if reNegation.MatchString(pre) || reNoLonger.MatchString(text) {
		if !reNoLonger.MatchString(text) || r.pred == "PREFERS" || (m != modeState && m != modePast) {
			return false
		}
		m = modeClose
	}
	switch {
	case reFuture.MatchString(pre):
		m = modePlan
	case m == modeState && rePastAux.MatchString(pre):
		m = modePast
	case m == modePast && rePerfect.MatchString(pre):
		m = modeState
	}
	d.mode = m
	return true
}

type subjKind int

const (
	subjNone    subjKind = iota // no subject before the verb: it is elided
	subjSpeaker                 // I, my, me
	subjName                    // a capitalised name
	subjBlocked                 // a pronoun or a common noun: not an entity
)

// subjectEN scans the words before a verb from right to left for its subject.
func subjectEN(pre string) (subjKind, string) {
	toks := strings.Fields(strings.ReplaceAll(pre, "’", "'"))
	for i := len(toks) - 1; i >= 0; i-- {
		t := strings.Trim(toks[i], ",.;:!?\"“”()")
		low := strings.ToLower(t)
		base := contractionBase(low) // "you'll" → "you"
		switch {
		case low == "":
			continue
		case firstPerson[low] || firstPerson[base]:
			return subjSpeaker, ""
		case pronouns[low] || pronouns[base] || articles[low]:
			return subjBlocked, "" // "he …", "the work at …"
		case nameWord(t):
			j := i
			for j > 0 && nameWord(strings.Trim(toks[j-1], "\"“”(")) {
				j--
			}
			return subjName, cleanName(strings.Join(toks[j:i+1], " "))
		case skippable[low] || (stopCaps[low] && isCapitalised(t)) || isNumber(low):
			continue
		}
		return subjBlocked, ""
	}
	return subjNone, ""
}

func isNumber(s string) bool {
	s = strings.TrimRight(s, "stndrh")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// contractionBase is the word before an apostrophe ("you'll" → "you"), or the word itself.
func contractionBase(w string) string {
	if i := strings.IndexAny(w, "'’"); i > 0 {
		return w[:i]
	}
	return w
}
