package wire

import (
	"encoding/json"
	"fmt"
	"strings"
)

// GrammarHeader starts the first line of every grammar this package writes, followed by the
// task's name: a GBNF comment, so servers ignore it, and TaskOf reads the task back from it.
const GrammarHeader = "# backfill task "

// GBNF writes the schema as a grammar in llama.cpp's GBNF that admits exactly the compact JSON
// of a valid answer: properties in the schema's order, no whitespace between tokens, free-text
// strings at most their MaxLength characters. A JSON-schema grammar (FormatJSONObjectSchema)
// lets the model indent and break lines at will, and small models write pretty-printed JSON,
// which costs about a third of an answer's tokens (bench/results.md, issue 43); this one cannot.
// Identical rules are written once, so the grammar is deterministic and short.
func (s *Schema) GBNF(task string) (string, error) {
	g := &gbnf{names: map[string]string{}}
	root, err := g.rule(s, "root")
	if err != nil {
		return "", fmt.Errorf("writing the grammar of %s: %w", task, err)
	}
	return g.write(task, root), nil
}

// write writes the grammar with the root body root and the rules collected.
func (g *gbnf) write(task, root string) string {
	var b strings.Builder
	b.WriteString(GrammarHeader + task + "\n")
	fmt.Fprintf(&b, "root ::= %s\n", root)
	for _, r := range g.rules {
		fmt.Fprintf(&b, "%s ::= %s\n", r[0], r[1])
	}
	b.WriteString(`char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})` + "\n")
	return b.String()
}

// maxGrammarRepetitions is the largest {0,N} llama.cpp's GBNF parser accepts
// (MAX_REPETITION_THRESHOLD); maxStringCap is below it.
const maxGrammarRepetitions = 2000

// gbnf collects the named rules of a grammar: rules in order of first use, names by body.
type gbnf struct {
	rules [][2]string
	names map[string]string
}

// rule returns the name of the rule that matches s, adding it (and the rules it uses) once.
func (g *gbnf) rule(s *Schema, hint string) (string, error) {
	var alts []string
	for _, typ := range s.Types {
		alt, err := g.alternative(s, typ, hint)
		if err != nil {
			return "", err
		}
		alts = append(alts, alt)
	}
	if len(alts) == 0 {
		return "", fmt.Errorf("%s: no type", hint)
	}
	body := strings.Join(alts, " | ")
	if name, ok := g.names[body]; ok {
		return name, nil
	}
	name := fmt.Sprintf("r%d-%s", len(g.rules), ruleHint(hint))
	g.names[body] = name
	g.rules = append(g.rules, [2]string{name, body})
	return name, nil
}

func (g *gbnf) alternative(s *Schema, typ, hint string) (string, error) {
	switch typ {
	case "string":
		if len(s.Enum) > 0 {
			vals := make([]string, len(s.Enum))
			for i, v := range s.Enum {
				vals[i] = gbnfLiteral(jsonString(v))
			}
			return "(" + strings.Join(vals, " | ") + ")", nil
		}
		if s.MaxLength > maxGrammarRepetitions {
			return "", fmt.Errorf("%s: maxLength %d over %d", hint, s.MaxLength, maxGrammarRepetitions)
		}
		if s.MaxLength > 0 {
			return fmt.Sprintf(`"\"" char{0,%d} "\""`, s.MaxLength), nil
		}
		return `"\"" char* "\""`, nil
	case "null":
		return `"null"`, nil
	case "boolean":
		return `("true" | "false")`, nil
	case "integer":
		return `"-"? ("0" | [1-9] [0-9]{0,17})`, nil
	case "number":
		return `"-"? ("0" | [1-9] [0-9]{0,17}) ("." [0-9]{1,17})? ([eE] [-+]? [0-9]{1,3})?`, nil
	case "array":
		if s.Items == nil {
			return "", fmt.Errorf("%s: array without items", hint)
		}
		item, err := g.rule(s.Items, hint+"-item")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(`"[" (%s ("," %s)*)? "]"`, item, item), nil
	case "object":
		if len(s.Properties) == 0 {
			return `("{" "}")`, nil
		}
		parts, err := g.members(s.Properties, "{", nil)
		if err != nil {
			return "", err
		}
		return "(" + strings.Join(append(parts, `"}"`), " ") + ")", nil
	}
	return "", fmt.Errorf("%s: type %q has no grammar", hint, typ)
}

// members writes the properties of an object in order, the first after open ("{", or "," when
// they continue an object), each a literal `"name":` and its value: the parts fixed writes from
// its schema for its name, else its schema's rule (rules are numbered in the order written).
func (g *gbnf) members(props []Property, open string, fixed map[string]func(*Schema) ([]string, error)) ([]string, error) {
	parts := make([]string, 0, 2*len(props))
	for i, p := range props {
		sep := ","
		if i == 0 {
			sep = open
		}
		parts = append(parts, gbnfLiteral(sep+jsonString(p.Name)+":"))
		if write, ok := fixed[p.Name]; ok {
			v, err := write(p.Schema)
			if err != nil {
				return nil, err
			}
			parts = append(parts, v...)
			continue
		}
		name, err := g.rule(p.Schema, p.Name)
		if err != nil {
			return nil, err
		}
		parts = append(parts, name)
	}
	return parts, nil
}

// jsonString is v as a JSON string literal, written as encoding/json writes it without HTML
// escapes (property names and enum values are plain words).
func jsonString(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// gbnfLiteral quotes text as a GBNF string literal: GBNF takes the escapes \\, \" and \xHH.
func gbnfLiteral(text string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ruleHint keeps the letters, digits and dashes of a property name for a readable rule name.
func ruleHint(h string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, h)
}
