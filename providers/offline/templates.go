package offline

import (
	"regexp"
	"strings"
)

// factParts are the slots of a fact sentence.
type factParts struct {
	S, O string // subject and object names
	Y    string // the object preferred less ("coffee over Y")
	C    string // the category of a favourite ("favorite C is O")
	V    string // the verb phrase of a plan
}

// Sentence variants besides the plain one.
const (
	variantPlain    = ""
	variantOver     = "over"     // prefers O over Y
	variantFavorite = "favorite" // S's favorite C is O
	variantNoObject = "noobject" // the object is not named in the sentence
)

// factTemplate is one sentence form of a predicate. {S} {O} {Y} {C} {V} are slots; {은} {을} {이}
// are Korean particles chosen by the final consonant of the preceding word.
type factTemplate struct {
	pred, lang, variant string
	closed              bool // past form, for facts that have ended
	form                string
	re                  *regexp.Regexp
}

// factTemplates are the sentence forms the extractor writes and the judge reads back; parseFact
// tries them in order, so the specific variants of a predicate come before its plain form.
var factTemplates = compileTemplates([]factTemplate{
	{pred: "WORKS_AT", lang: "en", form: "{S} works at {O}"},
	{pred: "WORKS_AT", lang: "en", closed: true, form: "{S} worked at {O}"},
	{pred: "WORKS_AT", lang: "ko", form: "{S}{은} {O}에서 일한다"},
	{pred: "WORKS_AT", lang: "ko", closed: true, form: "{S}{은} {O}에서 일했다"},
	{pred: "MEMBER_OF_TEAM", lang: "en", form: "{S} is on the {O}"},
	{pred: "MEMBER_OF_TEAM", lang: "en", closed: true, form: "{S} was on the {O}"},
	{pred: "MEMBER_OF_TEAM", lang: "ko", form: "{S}{은} {O} 소속이다"},
	{pred: "MEMBER_OF_TEAM", lang: "ko", closed: true, form: "{S}{은} {O} 소속이었다"},
	{pred: "LIVES_IN", lang: "en", form: "{S} lives in {O}"},
	{pred: "LIVES_IN", lang: "en", closed: true, form: "{S} lived in {O}"},
	{pred: "LIVES_IN", lang: "ko", form: "{S}{은} {O}에 산다"},
	{pred: "LIVES_IN", lang: "ko", closed: true, form: "{S}{은} {O}에 살았다"},
	{pred: "PREFERS", lang: "en", variant: variantOver, form: "{S} prefers {O} over {Y}"},
	{pred: "PREFERS", lang: "en", variant: variantFavorite, form: "{S}'s favorite {C} is {O}"},
	{pred: "PREFERS", lang: "en", form: "{S} prefers {O}"},
	{pred: "PREFERS", lang: "en", closed: true, form: "{S} used to prefer {O}"},
	{pred: "PREFERS", lang: "ko", variant: variantOver, form: "{S}{은} {Y}보다 {O}{을} 더 좋아한다"},
	{pred: "PREFERS", lang: "ko", variant: variantFavorite, form: "{S}{이} 가장 좋아하는 {C}{은} {O}이다"},
	{pred: "PREFERS", lang: "ko", form: "{S}{은} {O}{을} 좋아한다"},
	{pred: "PREFERS", lang: "ko", closed: true, form: "{S}{은} {O}{을} 좋아했다"},
	{pred: "HAS_PLAN", lang: "en", form: "{S} is on the {O}"},
	{pred: "HAS_PLAN", lang: "en", closed: true, form: "{S} was on the {O}"},
	{pred: "HAS_PLAN", lang: "ko", form: "{S}{은} {O}{을} 사용한다"},
	{pred: "HAS_PLAN", lang: "ko", closed: true, form: "{S}{은} {O}{을} 사용했다"},
	{pred: "IS_OUT_OF_STOCK", lang: "en", form: "{S} is out of stock at {O}"},
	{pred: "IS_OUT_OF_STOCK", lang: "en", variant: variantNoObject, form: "{S} is out of stock"},
	{pred: "IS_OUT_OF_STOCK", lang: "en", closed: true, form: "{S} was out of stock at {O}"},
	{pred: "IS_OUT_OF_STOCK", lang: "ko", form: "{S}{은} {O}에서 품절이다"},
	{pred: "IS_OUT_OF_STOCK", lang: "ko", variant: variantNoObject, form: "{S}{은} 품절이다"},
	{pred: "IS_OUT_OF_STOCK", lang: "ko", closed: true, form: "{S}{은} {O}에서 품절이었다"},
	{pred: "HAS_STATUS", lang: "en", form: "{S} has status {O}"},
	{pred: "HAS_STATUS", lang: "ko", form: "{S}의 상태는 {O}이다"},
	{pred: "LOCATED_IN", lang: "en", form: "{S} is located in {O}"},
	{pred: "LOCATED_IN", lang: "ko", form: "{S}{은} {O}에 있다"},
	{pred: "MANAGED_BY", lang: "en", form: "{S} is managed by {O}"},
	{pred: "MANAGED_BY", lang: "ko", form: "{S}의 담당자는 {O}이다"},
	{pred: "VISITED", lang: "en", form: "{S} visited {O}"},
	{pred: "VISITED", lang: "ko", form: "{S}{은} {O}에 다녀왔다"},
	{pred: "PLANS_TO", lang: "en", form: "{S} plans to {V}"},
	{pred: "PLANS_TO", lang: "ko", form: "{S}의 계획: {V}"},
})

var reSlot = regexp.MustCompile(`\{[^{}]+\}`)

// compileTemplates builds the reading regexp of every form: slots become lazy groups, particles
// accept both forms, and a trailing " (…)" qualifier and final period are optional.
func compileTemplates(ts []factTemplate) []factTemplate {
	for i := range ts {
		var b strings.Builder
		b.WriteString("^")
		form, last := ts[i].form, 0
		for _, loc := range reSlot.FindAllStringIndex(form, -1) {
			b.WriteString(regexp.QuoteMeta(form[last:loc[0]]))
			switch slot := form[loc[0]:loc[1]]; slot {
			case "{은}":
				b.WriteString("(?:은|는)")
			case "{을}":
				b.WriteString("(?:을|를)")
			case "{이}":
				b.WriteString("(?:이|가)")
			default:
				b.WriteString("(?P<" + slot[1:len(slot)-1] + ">.+?)")
			}
			last = loc[1]
		}
		b.WriteString(regexp.QuoteMeta(form[last:]))
		b.WriteString(`(?: \([^()]*\))?\.?$`)
		ts[i].re = regexp.MustCompile(b.String())
	}
	return ts
}

// renderFact writes the sentence of a fact; qualifier, if any, goes in parentheses at the end.
// Predicates without a template get a generic "S predicate O" sentence.
func renderFact(pred, lang, variant string, closed bool, p factParts, qualifier string) string {
	form := ""
	for _, t := range factTemplates {
		if t.pred == pred && t.lang == lang && t.variant == variant && t.closed == closed {
			form = t.form
			break
		}
	}
	if form == "" && closed {
		return renderFact(pred, lang, variant, false, p, qualifier)
	}
	if form == "" {
		form = "{S} " + strings.ToLower(strings.ReplaceAll(pred, "_", " ")) + " {O}"
	}
	var b strings.Builder
	last := 0
	for _, loc := range reSlot.FindAllStringIndex(form, -1) {
		b.WriteString(form[last:loc[0]])
		switch slot := form[loc[0]:loc[1]]; slot {
		case "{은}":
			b.WriteString(particleFor(b.String(), "은", "는"))
		case "{을}":
			b.WriteString(particleFor(b.String(), "을", "를"))
		case "{이}":
			b.WriteString(particleFor(b.String(), "이", "가"))
		case "{S}":
			b.WriteString(p.S)
		case "{O}":
			b.WriteString(p.O)
		case "{Y}":
			b.WriteString(p.Y)
		case "{C}":
			b.WriteString(p.C)
		case "{V}":
			b.WriteString(p.V)
		}
		last = loc[1]
	}
	b.WriteString(form[last:])
	if qualifier != "" {
		b.WriteString(" (" + qualifier + ")")
	}
	b.WriteString(".")
	return b.String()
}

func particleFor(before, withFinal, withoutFinal string) string {
	if hasBatchim(before) {
		return withFinal
	}
	return withoutFinal
}

// parseFact reads the slots back from a sentence written by renderFact for pred.
func parseFact(pred, text string) (factParts, string, bool) {
	text = strings.TrimSpace(text)
	for _, t := range factTemplates {
		if t.pred != pred {
			continue
		}
		m := t.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		var p factParts
		for i, name := range t.re.SubexpNames() {
			switch name {
			case "S":
				p.S = m[i]
			case "O":
				p.O = m[i]
			case "Y":
				p.Y = m[i]
			case "C":
				p.C = m[i]
			case "V":
				p.V = m[i]
			}
		}
		return p, t.variant, true
	}
	return factParts{}, "", false
}
