package extract

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/tkgraph/backfill/llm"
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
	RepairUnknownEnd     = "fact_unknown_endpoint"   // a fact whose subject or object is not a kept entity, dropped
	RepairRespelledEnd   = "fact_endpoint_respelled" // a fact endpoint written with other case or spaces, given the entity's spelling
	RepairSelfLoop       = "fact_self_loop"          // a fact linking an entity to itself, dropped
	hygieneVersionNumber = "1"
)

// HygieneVersion names the rules of repair; it is part of every unit fingerprint, so a change
// to the rules re-runs the extraction (answered from the cache).
const HygieneVersion = "hygiene-v" + hygieneVersionNumber

// Repairs counts the repairs of one answer by kind.
type Repairs map[string]int

// inputFields are the field names of the extraction input (llm.ExtractInput, llm.EpisodeIn);
// a model that copies one as an entity misread the input.
var inputFields = []string{"episode", "previous", "reference_time", "source", "speaker", "content",
	"entities", "entity_types", "edge_types", "excluded_types"}

// inputWords are the words of the input that are never entities: the episode sources, the input
// field names, the reference times, and the top-level field names of a JSON record. The speaker
// is always an entity and is never among them.
func inputWords(in llm.ExtractInput) map[string]bool {
	words := map[string]bool{"message": true, "text": true, "json": true}
	for _, f := range inputFields {
		words[f] = true
	}
	for _, ep := range append([]llm.EpisodeIn{in.Episode}, in.Previous...) {
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

// repair applies the answer hygiene rules to an extraction, in order: entities without a name,
// of an excluded type, that are numbers, dates or words of the input are dropped; entities named
// twice are merged (the first spelling wins, a specific type over "Entity", attributes joined);
// then facts are kept only between two different kept entities, an endpoint matching one only
// by case or spacing taking its spelling. Nil lists become empty ones. The speaker is never
// dropped. Every repair is counted by kind.
func repair(out Output, in llm.ExtractInput) (Output, Repairs) {
	rep := Repairs{}
	words := inputWords(in)
	speaker := fold(in.Episode.Speaker)
	kept := map[string]int{} // folded name → index in ents
	ents := []llm.EntityMention{}
	for _, e := range out.Entities {
		name := strings.TrimSpace(e.Name)
		key := fold(name)
		kind := ""
		switch {
		case name == "":
			kind = RepairEmptyName
		case isExcluded(e.Type, in.ExcludedTypes):
			kind = RepairExcluded
		case key == speaker:
		case words[key]:
			kind = RepairInputWord
		case isDate(key):
			kind = RepairDate
		case isNumber(key):
			kind = RepairNumber
		}
		if kind != "" {
			rep[kind]++
			continue
		}
		if i, ok := kept[key]; ok {
			rep[RepairDuplicate]++
			ents[i] = merge(ents[i], e)
			continue
		}
		e.Name = name
		if e.Attributes == nil {
			e.Attributes = []llm.AttributeValue{}
		}
		kept[key] = len(ents)
		ents = append(ents, e)
	}
	facts := []llm.ExtractedFact{}
	for _, f := range out.Facts {
		src, okS := endpoint(f.Source, ents, kept, rep)
		tgt, okT := endpoint(f.Target, ents, kept, rep)
		switch {
		case !okS || !okT:
			rep[RepairUnknownEnd]++
		case src == tgt:
			rep[RepairSelfLoop]++
		default:
			f.Source, f.Target = src, tgt
			facts = append(facts, f)
		}
	}
	return Output{Entities: ents, Facts: facts}, rep
}

// endpoint finds a fact endpoint among the kept entities: the entity's spelling, and whether
// there is one. A match by case or spacing only is counted as respelled.
func endpoint(name string, ents []llm.EntityMention, kept map[string]int, rep Repairs) (string, bool) {
	i, ok := kept[fold(name)]
	if !ok {
		return "", false
	}
	if ents[i].Name != strings.TrimSpace(name) {
		rep[RepairRespelledEnd]++
	}
	return ents[i].Name, true
}

// merge folds a repeated entity into the first: a specific type replaces "Entity", and the
// attributes it adds are appended.
func merge(first, dup llm.EntityMention) llm.EntityMention {
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
