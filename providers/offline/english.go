package offline

import (
	"regexp"
	"strings"
)

// objKind says how a rule finds its object.
type objKind int

const (
	objName     objKind = iota // a capitalised name after the verb ("at Kakao Mobility")
	objNP                      // a name or a short noun phrase ("love spicy food")
	objTeam                    // the "obj" group, plus " team"
	objFavorite                // the "cat" group is the category, a noun phrase the object
	objPrefer                  // a noun phrase, optionally "over <noun phrase>"
	objStock                   // "at <store>", or no object ("out of stock")
)

// enRule is an English fact pattern. The match ends where the object begins (or, for objTeam,
// contains it); the text before the match holds the subject.
type enRule struct {
	pred string
	mode mode
	obj  objKind
	re   *regexp.Regexp
}

const enTeam = `(?P<obj>(?:[a-z0-9][\w&-]*\s+){0,2}[a-z0-9][\w&-]*)`

func enRe(s string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + s) }

// enRules are tried in order; the first that finds a subject and an object gives the clause's
// fact.
var enRules = []enRule{
	{"MEMBER_OF_TEAM", modeStart, objTeam, enRe(`\b(?:moved|move|moving|transferred|transfer|transferring|switched|switch|switching|rotated|got moved|got transferred|was moved|was transferred|joined|join|joining)\s+(?:over\s+)?(?:to\s+|into\s+)?the\s+` + enTeam + `\s+team\b`)},
	{"MEMBER_OF_TEAM", modeState, objTeam, enRe(`\b(?:on|in)\s+the\s+` + enTeam + `\s+team\b`)},
	{"WORKS_AT", modeClose, objName, enRe(`\b(?:left|quit|resigned\s+from|stopped\s+working\s+(?:at|for)|retired\s+from|used\s+to\s+work\s+(?:at|for))\s+`)},
	{"WORKS_AT", modePast, objName, enRe(`\bworked\s+(?:at|for)\s+`)},
	{"WORKS_AT", modeStart, objName, enRe(`\b(?:joined|join|joining|started\s+(?:working\s+)?(?:at|for)|start\s+(?:working\s+)?(?:at|for)|starting\s+(?:working\s+)?(?:at|for)|switched\s+to|got\s+(?:a\s+job|hired|an\s+offer)\s+(?:at|by|from)|was\s+hired\s+(?:at|by))\s+`)},
	{"WORKS_AT", modeState, objName, enRe(`\b(?:work|works|working|employed)\s+(?:at|for|by)\s+`)},
	{"LIVES_IN", modeStart, objName, enRe(`\b(?:moved|move|moving|relocated|relocate|relocating)\s+(?:back\s+)?(?:to|into)\s+`)},
	{"LIVES_IN", modeClose, objName, enRe(`\bused\s+to\s+live\s+in\s+`)},
	{"LIVES_IN", modePast, objName, enRe(`\blived\s+in\s+`)},
	{"LIVES_IN", modeState, objName, enRe(`\b(?:live|lives|living|based)\s+in\s+`)},
	{"PREFERS", modeState, objFavorite, enRe(`\bfavou?rite\s+(?P<cat>[a-z]+(?:\s+[a-z]+)?)\s+(?:is|are|has\s+become|became)\s+(?:now\s+|still\s+|definitely\s+|probably\s+)?`)},
	{"PREFERS", modeState, objPrefer, enRe(`\b(?:prefer|prefers|preferring)\s+`)},
	{"PREFERS", modeState, objNP, enRe(`\b(?:love|loves|really\s+like|really\s+likes|enjoy|enjoys|am\s+into|'m\s+into|(?:am|'m)\s+a\s+(?:big\s+|huge\s+)?fan\s+of)\s+`)},
	{"IS_OUT_OF_STOCK", modeState, objStock, enRe(`\b(?:is|are|was|were|'s|went|has\s+been|have\s+been)\s+(?:currently\s+|now\s+|still\s+|temporarily\s+)?(?:out\s+of\s+stock|sold\s+out)\b`)},
	{"VISITED", modeEvent, objName, enRe(`\b(?:visited|went\s+to|traveled\s+to|travelled\s+to|flew\s+to|was\s+in)\s+`)},
}

var (
	reHypothetical = enRe(`\b(?:if|whether|maybe|might|would|could|wish|hope|hoping|wonder|unless)\b`)
	reNegation     = enRe(`\b(?:not|never|no longer)\b|n't\b`)
	reNoLonger     = enRe(`\b(?:no longer|anymore|any more)\b`)
	reFuture       = enRe(`\b(?:will|shall|gonna|going\s+to|plan\s+to|plans\s+to|planning\s+to|intend\s+to|intends\s+to|about\s+to|need\s+to|needs\s+to|have\s+to|has\s+to)\b|'ll\b`)
	rePastAux      = enRe(`\b(?:was|were|used\s+to)\b`)
	rePerfect      = enRe(`\b(?:have|has)\b|'ve\b`)
	reAtPlace      = enRe(`^\s*(?:at|in)\s+`)
	reContrast     = enRe(`^\s*(?:over|to|rather\s+than|instead\s+of|more\s+than)\s+`)
)

// enState carries what a clause leaves to the next one of its sentence.
type enState struct {
	subj string    // the clause's subject, for a next clause that omits it
	hits []dateHit // the clause's dates, for a next clause without its own
	fact bool      // the clause gave a fact
}

// english extracts the facts and names of one English sentence.
func (ex *extractor) english(s sentence) {
	var prev *enState
	for _, c := range splitClauses(s.text) {
		prev = ex.englishClause(c.text, s.question, prev)
	}
	ex.scanNames(s.text, true)
}

// englishClause extracts at most one fact from a clause.
func (ex *extractor) englishClause(text string, question bool, prev *enState) *enState {
	st := &enState{hits: scanDatesEN(text)}
	if len(st.hits) == 0 && prev != nil && !prev.fact {
		st.hits = prev.hits // "On March 2, I joined Naver."
	}
	if question || reHypothetical.MatchString(text) {
		return st
	}
	for _, r := range enRules {
		loc := r.re.FindStringSubmatchIndex(text)
		if loc == nil {
			continue
		}
		d, ok := ex.enObject(r, text, loc)
		if !ok {
			continue
		}
		pre := text[:loc[0]]
		k, _ := subjectEN(pre)
		if r.pred == "IS_OUT_OF_STOCK" && k != subjName || r.pred == "PREFERS" && k == subjNone {
			return st // only a named product is out of stock; "enjoy your day!" is no preference
		}
		d.subj = ex.enSubject(pre, st, prev)
		if d.subj == "" {
			return st
		}
		if !ex.enMode(r, pre, text, &d) {
			return st
		}
		if d.mode == modePlan {
			m := reFuture.FindStringIndex(pre)
			d.pred, d.variant, d.parts = "PLANS_TO", variantPlain, factParts{V: planPhrase(text[m[1]:])}
		}
		d.hits = st.hits
		ex.add(d)
		st.fact = true
		return st
	}
	ex.enPlan(text, st, prev)
	return st
}

// enPlan makes a PLANS_TO fact of a future-tense clause that matched no rule.
func (ex *extractor) enPlan(text string, st *enState, prev *enState) {
	m := reFuture.FindStringIndex(text)
	if m == nil {
		return
	}
	vp := strings.TrimSpace(text[m[1]:])
	fields := strings.Fields(vp)
	if len(fields) == 0 || len(fields) == 1 && auxVerbs[strings.ToLower(fields[0])] || reNegation.MatchString(text[:m[0]]) {
		return // "won't", "I'll have."
	}
	if first := strings.ToLower(fields[0]); articles[first] || pronouns[first] || objectPronouns[first] || isCapitalised(fields[0]) {
		return // "going to the gym", "going to Busan" (a trip, not a plan statement)
	}
	if k, _ := subjectEN(text[:m[0]]); k != subjSpeaker && k != subjName {
		return // "Will do!", "Going to meetings has …": no stated subject
	}
	subj := ex.enSubject(text[:m[0]], st, prev)
	if subj == "" {
		return
	}
	obj := firstName(vp)
	if obj == "" && len(fields) > 1 {
		obj, _ = npAfter(strings.Join(fields[1:], " "))
	}
	if obj == "" {
		obj = ex.ents.lastOther(subj)
	}
	ex.add(draft{pred: "PLANS_TO", lang: "en", mode: modePlan, subj: subj, subjType: ex.personType(),
		obj: obj, objType: "Entity", parts: factParts{V: planPhrase(vp)}, hits: st.hits})
	st.fact = true
}

// planPhrase is the verb phrase of a plan as the fact sentence shows it.
func planPhrase(vp string) string {
	return strings.TrimRight(strings.TrimSpace(vp), " .,;:!")
}
