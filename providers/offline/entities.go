package offline

import (
	"regexp"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// registry collects the entities of one episode in order of first mention, one per normalised
// name; the first spelling wins and a specific type replaces "Entity".
type registry struct {
	list  []wire.ExtractedEntity
	index map[string]int
}

func newRegistry() *registry { return &registry{index: map[string]int{}} }

// add registers a name and returns the spelling facts must use, or "" for an empty name.
func (r *registry) add(name, typ string) string {
	name = cleanName(name)
	if name == "" {
		return ""
	}
	if typ == "" {
		typ = "Entity"
	}
	key := normName(name)
	if i, ok := r.index[key]; ok {
		if r.list[i].Type == "Entity" && typ != "Entity" {
			r.list[i].Type = typ
		}
		return r.list[i].Name
	}
	r.index[key] = len(r.list)
	r.list = append(r.list, wire.ExtractedEntity{Name: name, Type: typ})
	return name
}

// has reports whether a name is registered.
func (r *registry) has(name string) bool {
	_, ok := r.index[normName(cleanName(name))]
	return ok
}

// lastOther is the most recently registered entity other than the excluded name, or "".
func (r *registry) lastOther(exclude string) string {
	for i := len(r.list) - 1; i >= 0; i-- {
		if normName(r.list[i].Name) != normName(exclude) {
			return r.list[i].Name
		}
	}
	return ""
}

// cleanName trims spaces, quotes, brackets and trailing punctuation and a possessive "'s".
func cleanName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.Trim(s, " \"'“”‘’()[]{}<>«»「」『』,.;:!?~")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
	return strings.TrimSpace(s)
}

// ontology maps the lower-cased names of the job's entity types to their spelling.
type ontology map[string]string

func newOntology(types []wire.EntityTypeIn) ontology {
	o := ontology{}
	for _, t := range types {
		if t.Name != "" {
			o[strings.ToLower(t.Name)] = t.Name
		}
	}
	return o
}

// pick returns the first candidate type the ontology has, or "Entity".
func (o ontology) pick(candidates ...string) string {
	for _, c := range candidates {
		if name, ok := o[strings.ToLower(c)]; ok {
			return name
		}
	}
	return "Entity"
}

// Candidate types per role, most specific first.
var (
	typesPerson   = []string{"Person", "User", "Human", "Individual"}
	typesOrg      = []string{"Organization", "Organisation", "Company", "Employer"}
	typesTeam     = []string{"Team", "Organization", "Organisation"}
	typesPlace    = []string{"Location", "Place", "City", "Region"}
	typesPlan     = []string{"Plan", "Subscription", "Product"}
	typesProduct  = []string{"Product", "Item"}
	typesCustomer = []string{"Customer", "Account", "Organization", "Organisation", "Company", "Person"}
	typesStore    = []string{"Store", "Location", "Place", "Organization", "Organisation"}
)

// objectTypes are the candidate types of a predicate's object.
func objectTypes(pred string) []string {
	switch pred {
	case "WORKS_AT":
		return typesOrg
	case "MEMBER_OF_TEAM":
		return typesTeam
	case "LIVES_IN", "LOCATED_IN", "VISITED":
		return typesPlace
	case "HAS_PLAN":
		return typesPlan
	case "IS_OUT_OF_STOCK":
		return typesStore
	case "MANAGED_BY":
		return typesPerson
	}
	return nil
}

var (
	reQuoted  = regexp.MustCompile(`["“「『]([^"”」』]{2,60})["”」』]`)
	reWordTok = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}&'’.-]*`)
)

// scanNames registers the quoted names of a sentence and, in English, its capitalised word
// sequences that do not open the sentence (those become entities only through a pattern).
func (ex *extractor) scanNames(s string, english bool) {
	for _, m := range reQuoted.FindAllStringSubmatch(s, -1) {
		if len(strings.Fields(m[1])) <= 6 {
			ex.ents.add(m[1], ex.onto.pick(typesProduct...))
		}
	}
	if !english {
		return
	}
	locs := reWordTok.FindAllStringIndex(s, -1)
	for i := 0; i < len(locs); {
		j := i
		for j < len(locs) && nameWord(s[locs[j][0]:locs[j][1]]) &&
			(j == i || gapIs(s, locs[j-1][1], locs[j][0])) {
			j++
		}
		if j == i {
			i++
			continue
		}
		name := s[locs[i][0]:locs[j-1][1]]
		if i > 0 && !ex.partOfKnown(name) {
			ex.ents.add(name, "Entity")
		}
		i = j
	}
}

// gapIs reports whether the text between two tokens is a single space.
func gapIs(s string, from, to int) bool { return s[from:to] == " " }

// nameWord reports whether a token can be part of an English name.
func nameWord(tok string) bool {
	tok = strings.TrimRight(tok, ".'’-")
	if !isCapitalised(tok) {
		return false
	}
	low := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(tok, "'s"), "’s"))
	return !stopCaps[low] && !stopCaps[contractionBase(low)]
}

// partOfKnown reports whether name is already registered or is a word of a registered name
// ("Clova" of "Clova team").
func (ex *extractor) partOfKnown(name string) bool {
	n := normName(cleanName(name))
	for _, e := range ex.ents.list {
		en := normName(e.Name)
		if en == n || strings.HasPrefix(en, n+" ") || strings.HasSuffix(en, " "+n) {
			return true
		}
	}
	return false
}
