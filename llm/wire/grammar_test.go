package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestTaskGrammarsGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := GrammarTask(task.Grammar); got != name {
			t.Errorf("GrammarTask of %s's grammar = %q", name, got)
		}
		buf.WriteString(task.Grammar + "\n")
	}
	golden(t, "grammars.golden", buf.Bytes())
}

// TestGrammarAdmitsCompactAnswers reads each task's grammar as a regular expression (the
// grammars are not recursive) and checks it against answers written from the schema: the
// compact answer that Validate accepts matches, with every nullable value both null and set;
// the same answer indented, a property out of order, a wrong enum value and a string over its
// cap do not.
func TestGrammarAdmitsCompactAnswers(t *testing.T) {
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		re := grammarRegexp(t, task.Grammar)
		for _, nulls := range []bool{false, true} {
			answer := sampleAnswer(task.Schema, nulls, "x")
			if err := task.Schema.Validate([]byte(answer)); err != nil {
				t.Fatalf("%s: the sample answer is invalid: %v\n%s", name, err, answer)
			}
			if !re.MatchString(answer) {
				t.Errorf("%s: the grammar refuses the compact answer %s", name, answer)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, []byte(answer), "", "  "); err != nil {
				t.Fatal(err)
			}
			if re.MatchString(pretty.String()) {
				t.Errorf("%s: the grammar admits the indented answer", name)
			}
		}
	}
	task, err := LookupTask(TaskExtract)
	if err != nil {
		t.Fatal(err)
	}
	re := grammarRegexp(t, task.Grammar)
	fact := `{"subject":"Emma","predicate":"WORKS_AT","object":"Globex","fact":"Emma works at Globex.",` +
		`"kind":"state","valid_at":"2024-01-08T10:00:00Z","invalid_at":null}`
	for _, c := range []struct {
		answer string
		ok     bool
	}{
		{`{"entities":[],"facts":[]}`, true},
		{`{"entities":[{"name":"김민수","type":"person","attributes":[]}],"facts":[` + fact + `]}`, true},
		{`{"entities":[],"facts":[` + fact + `,` + fact + `]}`, true},
		{`{"entities":[],"facts":[` + strings.Replace(fact, `"state"`, `"status"`, 1) + `]}`, false},
		{`{"entities":[],"facts":[` + strings.Replace(fact, "Emma works", strings.Repeat("a", 601), 1) + `]}`, false},
		{`{"entities":[],"facts":[` + strings.Replace(fact, "Emma works", "Emma\nworks", 1) + `]}`, false},
		{`{"facts":[],"entities":[]}`, false},
		{`{"entities":[], "facts":[]}`, false},
	} {
		if got := re.MatchString(c.answer); got != c.ok {
			t.Errorf("grammar of %s matches %q: %v, want %v", TaskExtract, c.answer, got, c.ok)
		}
	}
}

// sampleAnswer writes a compact JSON value of schema s in the schema's property order: one item
// per array, the first enum value, text for free strings, and null for nullable values when
// nulls is set.
func sampleAnswer(s *Schema, nulls bool, text string) string {
	if nulls && s.has("null") {
		return "null"
	}
	switch {
	case s.has("object"):
		var b strings.Builder
		b.WriteByte('{')
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(p.Name) + ":" + sampleAnswer(p.Schema, nulls, text))
		}
		return b.String() + "}"
	case s.has("array"):
		return "[" + sampleAnswer(s.Items, nulls, text) + "]"
	case s.has("string") && len(s.Enum) > 0:
		return jsonString(s.Enum[0])
	case s.has("string"):
		return jsonString(text)
	case s.has("integer"):
		return "-12"
	case s.has("number"):
		return "0.5e3"
	case s.has("boolean"):
		return "true"
	}
	return "null"
}

// grammarRegexp turns a grammar of Schema.GBNF into an anchored regular expression by inlining
// its rules, which never refer to themselves.
func grammarRegexp(t *testing.T, grammar string) *regexp.Regexp {
	t.Helper()
	rules := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(grammar), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, body, ok := strings.Cut(line, " ::= ")
		if !ok {
			t.Fatalf("grammar line %q", line)
		}
		rules[name] = body
	}
	// Go's regexp refuses nested repeats past 1000 (char{0,600} of a {4}): spell the four out.
	rules["char"] = strings.Replace(rules["char"], "[0-9a-fA-F]{4}", strings.Repeat("[0-9a-fA-F]", 4), 1)
	var expand func(name string, depth int) string
	expand = func(name string, depth int) string {
		body, ok := rules[name]
		if !ok || depth > 20 {
			t.Fatalf("rule %q undefined or recursive", name)
		}
		var b strings.Builder
		for i := 0; i < len(body); {
			c := body[i]
			switch {
			case c == ' ':
				i++
			case c == '"':
				j := i + 1
				var lit strings.Builder
				for ; body[j] != '"'; j++ {
					if body[j] == '\\' {
						j++
						if body[j] == 'x' {
							var v byte
							fmt.Sscanf(body[j+1:j+3], "%02X", &v)
							lit.WriteByte(v)
							j += 2
							continue
						}
					}
					lit.WriteByte(body[j])
				}
				b.WriteString(regexp.QuoteMeta(lit.String()))
				i = j + 1
			case c == '[':
				j := strings.IndexByte(body[i+1:], ']') + i + 1
				for body[j-1] == '\\' && body[j-2] != '\\' {
					j = strings.IndexByte(body[j+1:], ']') + j + 1
				}
				b.WriteString(body[i : j+1])
				i = j + 1
			case c == '(':
				b.WriteString("(?:")
				i++
			case strings.IndexByte(")|?*+", c) >= 0:
				b.WriteByte(c)
				i++
			case c == '{':
				j := strings.IndexByte(body[i:], '}') + i
				b.WriteString(body[i : j+1])
				i = j + 1
			default:
				j := i
				for j < len(body) && (body[j] == '-' || body[j] >= '0' && body[j] <= '9' || body[j] >= 'a' && body[j] <= 'z' || body[j] >= 'A' && body[j] <= 'Z') {
					j++
				}
				b.WriteString("(?:" + expand(body[i:j], depth+1) + ")")
				i = j
			}
		}
		return b.String()
	}
	re, err := regexp.Compile(`^(?:` + expand("root", 0) + `)$`)
	if err != nil {
		t.Fatalf("grammar as a regular expression: %v", err)
	}
	return re
}

// TestWindowGrammarNumbersEpisodes checks the grammar of a window request: one
// facts_by_episode entry per episode of the window, numbered 1 … k in order, each with its own
// facts; no entry missing, added, repeated or out of order.
func TestWindowGrammarNumbersEpisodes(t *testing.T) {
	task, err := LookupTask(TaskExtractWindow)
	if err != nil {
		t.Fatal(err)
	}
	in := WindowInput{Episodes: []WindowEpisodeIn{{N: 1}, {N: 2}, {N: 3}}}
	req, err := task.ForInput(&in)
	if err != nil {
		t.Fatal(err)
	}
	if req.Grammar == task.Grammar || GrammarTask(req.Grammar) != TaskExtractWindow {
		t.Fatalf("the window request's grammar is the task's own or names another task:\n%s", req.Grammar)
	}
	if task.Grammar == "" || task.GrammarVariant == "" {
		t.Fatal("the task lost its own grammar or its variant")
	}
	golden(t, "window_grammar.golden", []byte(req.Grammar))
	re := grammarRegexp(t, req.Grammar)
	fact := `{"subject":"Emma","predicate":"WORKS_AT","object":"Globex","fact":"Emma works at Globex.",` +
		`"kind":"state","valid_at":null,"invalid_at":null}`
	ent := `{"name":"Emma","type":"Entity","attributes":[]}`
	for _, c := range []struct {
		episodes string
		ok       bool
	}{
		{`{"n":1,"facts":[]},{"n":2,"facts":[]},{"n":3,"facts":[]}`, true},
		{`{"n":1,"facts":[` + fact + `]},{"n":2,"facts":[]},{"n":3,"facts":[` + fact + `,` + fact + `]}`, true},
		{`{"n":1,"facts":[` + fact + `]},{"n":2,"facts":[]}`, false},
		{`{"n":1,"facts":[]},{"n":3,"facts":[]},{"n":2,"facts":[]}`, false},
		{`{"n":1,"facts":[]},{"n":2,"facts":[]},{"n":3,"facts":[]},{"n":4,"facts":[]}`, false},
		{`{"n":1,"facts":[]},{"n":1,"facts":[]},{"n":2,"facts":[]}`, false},
		{`{"n":1,"facts":[]}, {"n":2,"facts":[]},{"n":3,"facts":[]}`, false},
	} {
		answer := `{"entities":[` + ent + `],"facts_by_episode":[` + c.episodes + `]}`
		if c.ok {
			if err := task.Schema.Validate([]byte(answer)); err != nil {
				t.Fatalf("the sample answer is invalid: %v\n%s", err, answer)
			}
		}
		if got := re.MatchString(answer); got != c.ok {
			t.Errorf("the window grammar matches %s: %v, want %v", answer, got, c.ok)
		}
	}
	if _, err := task.ForInput(ExtractInput{}); err == nil {
		t.Error("ForInput took an input that is not a window")
	}
	if _, err := task.ForInput(&WindowInput{}); err == nil {
		t.Error("ForInput wrote a grammar for a window of no episodes")
	}
}
