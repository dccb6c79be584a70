package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var reQuotedStart = regexp.MustCompile(`^["“]([^"”]{1,60})["”]`)

// nameAfter reads a capitalised name (or a quoted one) at the start of s, after an optional
// "the"; "of" and "&" may join its words ("Bank of Korea").
func nameAfter(s string) string {
	s = strings.TrimSpace(s)
	if m := reQuotedStart.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	fields := strings.Fields(s)
	i := 0
	if i < len(fields) && strings.EqualFold(fields[i], "the") {
		i++
	}
	var parts []string
	for ; i < len(fields) && len(parts) < 5; i++ {
		w := fields[i]
		core := strings.TrimRight(w, ",.;:!?)\"”")
		if len(parts) > 0 && (core == "of" || core == "&") && i+1 < len(fields) && nameWord(fields[i+1]) {
			parts = append(parts, core)
			continue
		}
		if !nameWord(core) {
			break
		}
		parts = append(parts, core)
		if core != w {
			break // punctuation ends the name
		}
	}
	return cleanName(strings.Join(parts, " "))
}

// firstName is the first capitalised name anywhere in s, or "".
func firstName(s string) string {
	fields := strings.Fields(s)
	for i, w := range fields {
		if nameWord(strings.Trim(w, "\"“”(")) {
			return nameAfter(strings.Join(fields[i:], " "))
		}
	}
	return ""
}

// npAfter reads the object at the start of s: a quoted or capitalised name, or up to four
// lower-case words after an article; it also returns the text after it.
func npAfter(s string) (string, string) {
	s = strings.TrimSpace(s)
	if m := reQuotedStart.FindStringSubmatch(s); m != nil {
		return m[1], s[len(m[0]):]
	}
	fields := strings.Fields(s)
	if len(fields) == 0 || objectPronouns[strings.ToLower(strings.Trim(fields[0], ",.;:!?"))] {
		return "", ""
	}
	i := 0
	for i < len(fields)-1 && articles[strings.ToLower(fields[i])] {
		i++
	}
	if i > 0 {
		if m := reQuotedStart.FindStringSubmatch(strings.Join(fields[i:], " ")); m != nil {
			return m[1], strings.Join(fields[i:], " ")[len(m[0]):]
		}
	}
	if nameWord(fields[i]) {
		name := nameAfter(strings.Join(fields[i:], " "))
		n := len(strings.Fields(name))
		return name, strings.Join(fields[min(i+n, len(fields)):], " ")
	}
	var parts []string
	for ; i < len(fields) && len(parts) < 4; i++ {
		w := fields[i]
		core := strings.ToLower(strings.TrimRight(w, ",.;:!?)\"”"))
		if !hasLetter(core) || len(parts) > 0 && isCapitalised(w) || npStop[core] || stopCaps[core] || isNumber(core) {
			break
		}
		parts = append(parts, core)
		if core != strings.ToLower(w) {
			i++
			break
		}
	}
	return strings.Join(parts, " "), strings.Join(fields[i:], " ")
}

// titleWords upper-cases the first letter of every word.
func titleWords(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}

// hasLetter reports whether s contains a letter.
func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }
