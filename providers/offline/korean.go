package offline

import (
	"regexp"
	"sort"
	"strings"
)

// koRule is a Korean fact pattern; the "obj" group is the object noun, "other" the
// preferred-less object or the favourite's category, and "subj" a subject the pattern names
// itself (a product that is sold out).
type koRule struct {
	pred, variant string
	mode          mode
	team          bool // the object is a team: "<obj>팀"
	re            *regexp.Regexp
}

// koNoun is a noun right before its particle; koAdverbs are words that may stand between a
// place and its verb ("카카오에서 더 이상 일하지").
const (
	koNoun    = `[\p{Hangul}A-Za-z0-9][\p{Hangul}A-Za-z0-9&._-]*?`
	koAdverbs = `(?:(?:더\s?이상|더는|이제는?|이젠|요즘|지금|아직|계속|다시|열심히|같이)\s)*`
)

func koRe(s string) *regexp.Regexp {
	s = strings.ReplaceAll(s, "(?P<obj>N)", "(?P<obj>"+koNoun+")")
	s = strings.ReplaceAll(s, "(?P<other>N)", "(?P<other>"+koNoun+")")
	s = strings.ReplaceAll(s, "(?P<subj>N)", "(?P<subj>"+koNoun+")")
	s = strings.ReplaceAll(s, "ADV", koAdverbs)
	return regexp.MustCompile(s)
}

// koRules are tried in order; earlier rules win where matches overlap.
var koRules = []koRule{
	{pred: "MEMBER_OF_TEAM", mode: modeStart, team: true, re: koRe(`(?P<obj>N)\s?팀(?:으로|로)\s(?:옮|이동|발령|배치|전배|가게|갔)`)},
	{pred: "MEMBER_OF_TEAM", mode: modeState, team: true, re: koRe(`(?P<obj>N)\s?팀(?:에\sADV(?:있|계|속)|에서\sADV(?:일|근무)|\s?소속)`)},
	{pred: "WORKS_AT", mode: modeClose, re: koRe(`(?P<obj>N)(?:을|를)\s(?:그만\s?두|그만\s?뒀|그만\s?둬|그만\s?둘|퇴사|관두|관뒀|나왔)`)},
	{pred: "WORKS_AT", mode: modeClose, re: koRe(`(?P<obj>N)에서\s(?:퇴사|나왔|그만)`)},
	{pred: "WORKS_AT", mode: modeStart, re: koRe(`(?P<obj>N)에\s(?:입사|취직|들어갔|합류)`)},
	{pred: "WORKS_AT", mode: modeStart, re: koRe(`(?P<obj>N)(?:으로|로)\s(?:이직|입사)`)},
	{pred: "WORKS_AT", mode: modeState, re: koRe(`(?P<obj>N)에서\sADV(?:일|근무)`)},
	{pred: "WORKS_AT", mode: modeState, re: koRe(`(?P<obj>N)에\sADV(?:다니|다녀요|다닙니다|근무)`)},
	{pred: "LIVES_IN", mode: modeStart, re: koRe(`(?P<obj>N)(?:으로|로)\s(?:이사|이주)`)},
	{pred: "LIVES_IN", mode: modeState, re: koRe(`(?P<obj>N)에(?:서)?\sADV(?:살|거주|지내)`)},
	{pred: "PREFERS", mode: modeState, variant: variantOver, re: koRe(`(?P<other>N)보다\s(?P<obj>N)(?:을|를|이|가)\s(?:(?:더|훨씬|더욱)\s)+좋아`)},
	{pred: "PREFERS", mode: modeState, variant: variantFavorite, re: koRe(`(?:제일|가장)\s좋아하는\s(?P<other>N)(?:은|는)\s(?P<obj>N)(?:이에요|예요|이예요|입니다|이야|야|이다)(?:$|[\s.!?,~])`)},
	{pred: "PREFERS", mode: modeState, re: koRe(`(?P<obj>N)(?:을|를)\s(?:(?:정말|진짜|너무|제일|가장|많이|특히|아주|엄청)\s)*좋아(?:해|하|합)`)},
	{pred: "IS_OUT_OF_STOCK", mode: modeState, variant: variantNoObject, re: koRe(`(?P<subj>N)(?:은|는|이|가)\s(?:\S+\s){0,3}?(?:품절|매진)`)},
	{pred: "VISITED", mode: modeEvent, re: koRe(`(?P<obj>N)에\s(?:다녀왔|다녀\s왔|갔다\s?왔|놀러\s갔|여행\s갔|갔었)`)},
	{pred: "VISITED", mode: modeEvent, re: koRe(`(?P<obj>N)(?:으로|로)\s(?:여행|출장)`)},
}

var (
	reKoNeg        = regexp.MustCompile(`않|(?:^|\s)(?:안|못)\s|아니`)
	reKoNoLonger   = regexp.MustCompile(`더\s?이상|더는|이젠|이제는`)
	reKoFirst      = regexp.MustCompile(`(?:^|\s)(?:저는|제가|저도|나는|내가|나도|전|난)(?:\s|$)`)
	reKoHonorific  = regexp.MustCompile(`(\p{Hangul}{2,4})\s?(?:씨|님)(?:은|는|이|가|도|께서)?(?:\s|$)`)
	reKoDeadline   = regexp.MustCompile(`까지\s?(?:\S+\s)?(?:끝내|끝낼|제출|마감|완료|보내|보낼|마칠|마무리)`)
	koTitles       = set(`선생 팀장 부장 과장 차장 사장 대표 고객 손님 기사 교수 원장 실장 이사`)
	koFirstPronoun = set(`저는 제가 저도 나는 내가 나도 전 난`)
	koStop         = set(`요즘 오늘 지금 이제 다음 이번 내일 어제 그럼 그래서 저희 우리 거 것 이거 그거 저거 진짜 정말 너무 그냥 일단 아마 주말 같이 다시 사람들 회사`)
)

// koMatch is one rule match in a sentence.
type koMatch struct {
	rule             koRule
	start, end       int
	obj, other, subj string
}

// korean extracts the facts and quoted names of one Korean sentence.
func (ex *extractor) korean(s sentence) {
	defer ex.scanNames(s.text, false)
	text := s.text
	if s.question {
		return
	}
	matches := koMatches(text)
	neg, noLonger := reKoNeg.MatchString(text), reKoNoLonger.MatchString(text)
	if neg && !noLonger {
		return
	}
	hits := scanDatesKO(text)
	if koFuture(text) {
		ex.koPlan(text, hits, matches)
		return
	}
	prevEnd, subj := 0, ""
	var prevHits []dateHit
	for _, m := range matches {
		var own []dateHit
		for _, h := range hits {
			if h.start >= prevEnd && h.start < m.end {
				own = append(own, h)
			}
		}
		if len(own) == 0 {
			own = prevHits
		}
		segment := text[prevEnd:m.start]
		prevEnd, prevHits = m.end, own
		md := m.rule.mode
		if m.subj != "" {
			ex.add(draft{pred: m.rule.pred, lang: "ko", variant: m.rule.variant, mode: md, subj: m.subj,
				subjType: ex.onto.pick(typesProduct...), obj: m.obj, objType: "Entity", hits: own})
			continue
		}
		subj = ex.koSubject(segment, subj)
		if md == modeState && pastWord(wordAt(text, m.end-1)) {
			md = modePast
		}
		if neg {
			if (md != modeState && md != modePast) || m.rule.pred == "PREFERS" {
				continue
			}
			md = modeClose
		}
		ex.add(ex.koDraft(m, md, subj, own))
	}
}

// koDraft turns a match into a fact draft.
func (ex *extractor) koDraft(m koMatch, md mode, subj string, hits []dateHit) draft {
	d := draft{pred: m.rule.pred, lang: "ko", variant: m.rule.variant, mode: md, subj: subj,
		subjType: ex.personType(), obj: m.obj, objType: ex.objectType(m.rule.pred), hits: hits}
	switch m.rule.variant {
	case variantOver:
		d.parts.Y = ex.ents.add(m.other, "Entity")
	case variantFavorite:
		d.parts.C = m.other
	}
	return d
}

// koMatches finds the rule matches of a sentence, earliest first, dropping overlaps.
func koMatches(text string) []koMatch {
	type cand struct {
		koMatch
		rank int
	}
	var all []cand
	for rank, r := range koRules {
		for _, loc := range r.re.FindAllStringSubmatchIndex(text, -1) {
			m := koMatch{rule: r, start: loc[0], end: loc[1]}
			if i := r.re.SubexpIndex("obj"); i > 0 && loc[2*i] >= 0 {
				m.obj = stripParticle(text[loc[2*i]:loc[2*i+1]])
			}
			if i := r.re.SubexpIndex("other"); i > 0 && loc[2*i] >= 0 {
				m.other = stripParticle(text[loc[2*i]:loc[2*i+1]])
			}
			if i := r.re.SubexpIndex("subj"); i > 0 && loc[2*i] >= 0 {
				m.subj = stripParticle(text[loc[2*i]:loc[2*i+1]])
				m.obj = "품절"
			}
			if r.team {
				m.obj += "팀"
			}
			all = append(all, cand{m, rank})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].rank < all[j].rank
	})
	var out []koMatch
	end := 0
	for _, c := range all {
		if c.start >= end && !koFirstPronoun[c.obj] && !koStop[c.obj] && !koStop[c.subj] && !koFirstPronoun[c.subj] {
			out = append(out, c.koMatch)
			end = c.end
		}
	}
	return out
}
