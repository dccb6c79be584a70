package extract

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
)

// Kinds of answer repairs, counted per run in the report (llm.answers_repaired, by kind), so a
// prompt or model change that makes answers worse shows up in a diff of two reports.
const (
	RepairEmptyName      = "empty_entity_name"       // an entity without a name, dropped
	RepairDuplicate      = "duplicate_entity"        // an entity named twice (case and spaces aside), merged into the first
	RepairNumber         = "number_entity"           // a number or amount offered as an entity, dropped
	RepairDate           = "date_entity"             // a date, time or relative day offered as an entity, dropped
	RepairInputWord      = "input_word_entity"       // a word of the input itself (source type, field name), dropped
	RepairExcluded       = "excluded_type_entity"    // an entity of an excluded type, dropped
	RepairUnknownEnd     = "fact_unknown_endpoint"   // a fact whose subject or object is not a kept entity and cannot be added, dropped
	RepairRespelledEnd   = "fact_endpoint_respelled" // a fact endpoint written with other case, spaces or a trailing full stop, given the entity's spelling
	RepairSelfLoop       = "fact_self_loop"          // a fact linking an entity to itself, dropped
	RepairAddedEnd       = "fact_endpoint_added"     // a fact endpoint no entity had, the speaker or a name in the content, added as an entity
	RepairQuotedContext  = "fact_quotes_context"     // a fact whose sentence quotes a previous episode, not this one: cited to that episode (Output.Quoted)
	RepairPredicateEnd   = "predicate_names_object"  // a predicate that goes on to name its object ("PLANS_TO_MOVE_TO_MANCHESTER"), cut before it
	RepairEmptySentence  = "fact_sentence_written"   // a fact without a sentence, given one written from its subject, predicate and object
	hygieneVersionNumber = "5"
)

// HygieneVersion names the rules of repair; it is part of every unit fingerprint, so a change
// to the rules re-runs the extraction (answered from the cache).
const HygieneVersion = "hygiene-v" + hygieneVersionNumber

// Repairs counts the repairs of one answer by kind.
type Repairs map[string]int

// inputFields are the field names of the extraction input (wire.ExtractInput, wire.EpisodeIn);
// a model that copies one as an entity misread the input.
var inputFields = []string{"episode", "previous", "reference_time", "source", "speaker", "content",
	"entities", "entity_types", "edge_types", "excluded_types"}

// inputWords are the words of the input that are never entities: the episode sources, the input
// field names, the reference times, and the top-level field names of a JSON record. The speaker
// is always an entity and is never among them.
func inputWords(in wire.ExtractInput) map[string]bool {
	words := map[string]bool{"message": true, "text": true, "json": true}
	for _, f := range inputFields {
		words[f] = true
	}
	for _, ep := range append([]wire.EpisodeIn{in.Episode}, in.Previous...) {
		words[fold(ep.ReferenceTime)] = true
		var rec map[string]json.RawMessage
		if json.Unmarshal([]byte(ep.Content), &rec) == nil {
			for k := range rec {
				words[fold(k)] = true
			}
		}
	}
	delete(words, fold(in.Episode.Speaker))
	return words
}

// repair applies the answer hygiene rules to an extraction (repairer.entities, then
// repairer.facts). Nil lists become empty ones. Every repair is counted by kind.
func repair(out Output, in wire.ExtractInput) (Output, Repairs) {
	r := newRepairer(in)
	ents := r.entities(out.Entities)
	ents, facts := r.facts(ents, out.Facts)
	return Output{Entities: ents, Facts: facts, Quoted: r.quoted}, r.rep
}

// repairer applies the hygiene rules to the answers about one episode, remembering the entities
// it kept and dropped, so that the facts of a later answer (two-call mode) are judged against
// them.
type repairer struct {
	in      wire.ExtractInput
	rep     Repairs
	words   map[string]bool
	speaker string
	kept    map[string]int    // folded name → index in the kept entities
	dropped map[string]bool   // folded names of the entities dropped
	quoted  []Quote           // the kept facts cited to a previous episode (cite)
	own     map[string]bool   // the episode's words (cite), built on first use
	prev    []map[string]bool // the words of each previous episode, in input order
}

func newRepairer(in wire.ExtractInput) *repairer {
	return &repairer{in: in, rep: Repairs{}, words: inputWords(in), speaker: fold(in.Episode.Speaker),
		kept: map[string]int{}, dropped: map[string]bool{}}
}

// entities cleans an entity list: entities without a name, of an excluded type, that are
// numbers, dates or words of the input are dropped; entities named twice are merged (the first
// spelling wins, a specific type over "Entity", attributes joined). The speaker is never dropped
// for being a word of the input.
func (r *repairer) entities(list []wire.EntityMention) []wire.EntityMention {
	ents := []wire.EntityMention{}
	for _, e := range list {
		name := strings.TrimSpace(e.Name)
		key := fold(name)
		kind := ""
		switch {
		case name == "":
			kind = RepairEmptyName
		case isExcluded(e.Type, r.in.ExcludedTypes):
			kind = RepairExcluded
		default:
			kind = r.unfit(key)
		}
		if kind != "" {
			r.rep[kind]++
			r.dropped[key] = true
			continue
		}
		if i, ok := r.kept[key]; ok {
			r.rep[RepairDuplicate]++
			ents[i] = merge(ents[i], e)
			continue
		}
		e.Name = name
		if e.Attributes == nil {
			e.Attributes = []wire.AttributeValue{}
		}
		r.kept[key] = len(ents)
		ents = append(ents, e)
	}
	return ents
}

// unfit is the repair kind of a folded entity name that is a word of the input, a date or a
// number, or "" for a name fit to be an entity (the speaker always is).
func (r *repairer) unfit(key string) string {
	switch {
	case key == r.speaker:
	case r.words[key]:
		return RepairInputWord
	case isDate(key):
		return RepairDate
	case isNumber(key):
		return RepairNumber
	}
	return ""
}

// facts keeps the facts between two different entities of ents (the kept entities): an
// endpoint matching one only by case, spacing or trailing punctuation takes its spelling; an
// endpoint that is no entity is added as one (of type "Entity") when it is addable; other facts
// are dropped. It returns the entities, with those added, and the facts.
func (r *repairer) facts(ents []wire.EntityMention, list []wire.ExtractedFact) ([]wire.EntityMention, []wire.ExtractedFact) {
	facts := []wire.ExtractedFact{}
	for _, f := range list {
		var okS, okT bool
		f.Source, okS = r.endpoint(f.Source, &ents)
		f.Target, okT = r.endpoint(f.Target, &ents)
		switch {
		case !okS || !okT:
			r.rep[RepairUnknownEnd]++
		case f.Source == f.Target:
			r.rep[RepairSelfLoop]++
		default:
			if p, ok := predicateBefore(f.Predicate, f.Target); ok {
				f.Predicate = p
				r.rep[RepairPredicateEnd]++
			}
			if strings.TrimSpace(f.Fact) == "" {
				f.Fact = tripleSentence(f)
				r.rep[RepairEmptySentence]++
			}
			if back := r.cite(f.Fact); back > 0 {
				r.rep[RepairQuotedContext]++
				r.quoted = append(r.quoted, Quote{Fact: len(facts), Back: back})
			}
			facts = append(facts, f)
		}
	}
	return ents, facts
}

// endpoint finds a fact endpoint among the kept entities, adding it when it is addable: the
// entity's spelling, and whether there is one. A match by case, spacing or trailing punctuation
// only is counted as respelled, an addition as added.
func (r *repairer) endpoint(name string, ents *[]wire.EntityMention) (string, bool) {
	name = strings.TrimSpace(name)
	trimmed := strings.TrimSpace(strings.TrimRight(name, endPunct))
	for _, n := range []string{name, trimmed} {
		if i, ok := r.kept[fold(n)]; ok {
			if (*ents)[i].Name != name {
				r.rep[RepairRespelledEnd]++
			}
			return (*ents)[i].Name, true
		}
	}
	if !r.addable(trimmed) {
		return "", false
	}
	r.rep[RepairAddedEnd]++
	r.kept[fold(trimmed)] = len(*ents)
	*ents = append(*ents, wire.EntityMention{Name: trimmed, Type: "Entity", Attributes: []wire.AttributeValue{}})
	return trimmed, true
}

// endPunct is the punctuation a fact endpoint may carry after a name ("Leeds.").
const endPunct = ".,;:!?"

// maxAddedWords bounds the words of an endpoint added as an entity: longer ones are phrases or
// sentences ("Sam has been a nurse since 2021"), not names.
const maxAddedWords = 4

// addable reports whether a fact endpoint that is no kept entity can be added as one: the type
// "Entity" is not excluded, no rule dropped an entity of that name, and it is the speaker, or a
// name (at most maxAddedWords words, starting with an upper-case letter, a digit or a letter of a
// script without case) that no rule makes unfit and that the episode's content contains as a
// word or words.
func (r *repairer) addable(name string) bool {
	key := fold(name)
	if key == "" || r.dropped[key] || isExcluded("Entity", r.in.ExcludedTypes) {
		return false
	}
	if key == r.speaker {
		return true
	}
	first, _ := utf8.DecodeRuneInString(name)
	named := unicode.IsUpper(first) || unicode.IsDigit(first) || caseless(first)
	return named && len(strings.Fields(name)) <= maxAddedWords && r.unfit(key) == "" && mentions(r.in.Episode.Content, name)
}

// caseless reports whether r is a letter of a script without case (Hangul, Han, Kana…).
func caseless(r rune) bool { return unicode.IsLetter(r) && !unicode.IsLower(r) && !unicode.IsUpper(r) }

// mentions reports whether content contains name (case and spacing aside) as a word or words:
// not inside a longer word, except that a name ending in a letter of a script without case may
// be followed by more letters (a Korean particle: "아이스티를"; so "아이스" is found there too,
// as scripts without spaces between words cannot tell).
func mentions(content, name string) bool {
	text, key := fold(content), fold(name)
	last, _ := utf8.DecodeLastRuneInString(key)
	for from := 0; ; {
		i := strings.Index(text[from:], key)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[i+len(key):])
		if (i == 0 || !wordRune(before)) && (i+len(key) == len(text) || !wordRune(after) || caseless(last)) {
			return true
		}
		from = i + 1
	}
}

// wordRune reports whether r is part of a word: a letter or a digit.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// merge folds a repeated entity into the first: a specific type replaces "Entity", and the
// attributes it adds are appended.
func merge(first, dup wire.EntityMention) wire.EntityMention {
	if (first.Type == "" || first.Type == "Entity") && dup.Type != "" {
		first.Type = dup.Type
	}
	for _, a := range dup.Attributes {
		known := false
		for _, b := range first.Attributes {
			known = known || strings.EqualFold(a.Name, b.Name)
		}
		if !known {
			first.Attributes = append(first.Attributes, a)
		}
	}
	return first
}

// fold is a name for comparisons: lower case, spaces collapsed.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var (
	// numberRe is an amount or a count: a sign, a currency, digits with separators or a
	// decimal part, a percent, a currency word or a Korean counter ("5", "$30", "-2.5%",
	// "1,200 dollars", "3만원"). Latin unit letters are left alone ("3M" is a company).
	numberRe = regexp.MustCompile(`^[+-]?[$€£¥₩]?\s?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s?(%|dollars?|usd|euros?|eur|yen|won|krw|만|천|억)?\s?(원|개|명|살|세|시|분|달러)?$`)
	// plainID is a bare integer of four digits or more: read as an identifier or code (an
	// order number, an account), which is an entity; years are caught as dates first.
	plainID = regexp.MustCompile(`^\d{4,}$`)
	// dateRes are dates, times and relative days in English and Korean.
	dateRes = []*regexp.Regexp{
		regexp.MustCompile(`^\d{4}-\d{2}(-\d{2})?([t ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(z|[+-]\d{2}:?\d{2})?)?$`), // ISO
		regexp.MustCompile(`^\d{1,4}[/.]\d{1,2}[/.]\d{1,4}$`),                                                // 5/7/2024, 7.5.2024
		regexp.MustCompile(`^\d{1,2}:\d{2}(:\d{2})?\s?(am|pm)?$|^\d{1,2}\s?(am|pm)$`),                        // times
		regexp.MustCompile(`^(19|20)\d{2}$`),                                                                 // a year
		regexp.MustCompile(`^((on|last|next|this|early|late|mid)[ -])?(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)( \d{1,2}(st|nd|rd|th)?)?(,? \d{4})?$`),
		regexp.MustCompile(`^(the )?\d{1,2}(st|nd|rd|th)?( of)? (jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)(,? \d{4})?$`),
		regexp.MustCompile(`^((on|last|next|this) )?(mon|tues|wednes|thurs|fri|satur|sun)day( (morning|afternoon|evening|night))?$`),
		regexp.MustCompile(`^(yesterday|today|tomorrow|tonight|now|the day before yesterday|the day after tomorrow|((the )?(end|beginning|start|middle) of )?(last|next|this) (week|weekend|month|year|morning|evening|night)|\d+ (days?|weeks?|months?|years?) (ago|later))$`),
		regexp.MustCompile(`^(\d{4}년( ?\d{1,2}월)?( ?\d{1,2}일)?|\d{1,2}월( ?\d{1,2}일)?|\d{1,2}일|어제|오늘|내일|모레|그제|그저께|지난주|이번 ?주|다음 ?주|지난달|이번 ?달|다음 ?달|작년|올해|내년|주말|[월화수목금토일]요일)$`),
	}
)

// isNumber reports whether a folded name is a number or an amount rather than an identifier.
func isNumber(s string) bool { return numberRe.MatchString(s) && !plainID.MatchString(s) }

// isDate reports whether a folded name is a date, a time or a relative day.
func isDate(s string) bool {
	for _, re := range dateRes {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// tripleSentence writes the sentence of a fact whose answer gave none from its endpoints and
// predicate ("Emma", LIVES_IN, "Manchester" → "Emma lives in Manchester."): the search, the
// judge and the summaries read a fact by its sentence, and facts of one pair without one would
// all read alike.
func tripleSentence(f wire.ExtractedFact) string {
	return f.Source + " " + strings.ToLower(strings.ReplaceAll(graph.Predicate(f.Predicate), "_", " ")) + " " + f.Target + "."
}

// predicateBefore cuts a predicate that goes on to name its object, with whatever follows
// ("STARTED_AT_INITECH_ON_APRIL_1" with object Initech → "STARTED_AT"; "LIVED_IN_LISBON_SINCE_2023"
// → "LIVED_IN"): the relation is the words before the object's, compared in SCREAMING_SNAKE_CASE
// word by word. A predicate that starts with the object's words, or does not hold them, is kept
// (ok false).
func predicateBefore(predicate, object string) (string, bool) {
	if strings.IndexFunc(object, wordRune) < 0 {
		return "", false // graph.Predicate would read it as RELATES_TO
	}
	p := strings.Split(graph.Predicate(predicate), "_")
	o := strings.Split(graph.Predicate(object), "_")
	for i := 1; i+len(o) <= len(p); i++ {
		if slices.Equal(p[i:i+len(o)], o) {
			return strings.Join(p[:i], "_"), true
		}
	}
	return "", false
}
