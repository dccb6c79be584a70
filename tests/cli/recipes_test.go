package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// recipe is one command of a Markdown page that a reader may copy: a line of a fenced `sh`
// block (with its continuation lines) or an inline code span that starts with "bin/backfill " or
// is "make demo".
type recipe struct {
	Line int    // line of the page where it starts
	Cmd  string // as written; an inline span's line breaks read as spaces
	Skip string // the marker that keeps the test from running it ("" = it runs)
	Uses string // the integration server it runs against (a "uses SERVER" marker), or ""
}

var (
	// marker is a page's note that a recipe needs more than the repository and its bundled
	// files: <!-- recipe: needs WHAT -->, <!-- recipe: run by TestName … --> or, before a block,
	// <!-- recipe: CMD needs WHAT --> for the block's lines that start with CMD and
	// <!-- recipe: uses SERVER --> for a block that runs against an integration server.
	marker     = regexp.MustCompile(`<!-- recipe: (.*?) -->`)
	markerLine = regexp.MustCompile(`^<!-- recipe: (.*?) -->$`)
	span       = regexp.MustCompile("`([^`]+)`")
	afterSpan  = regexp.MustCompile(`^\s*<!-- recipe: (.*?) -->`)
	lineBreak  = regexp.MustCompile(`[ \t]*\n[ \t]*`)
)

// docRecipes returns a Markdown page's recipes in the order they appear. A marker that belongs
// to no recipe, names a command its block does not hold, or says something else is an error, so
// that a marker cannot outlive what it marks.
func docRecipes(text string) ([]recipe, error) {
	lines := strings.SplitAfter(text, "\n")
	prose := make([]string, len(lines)) // the text outside fenced blocks, line for line
	claimed := map[int]bool{}           // lines whose markers belong to a recipe
	var out []recipe
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		if !strings.HasPrefix(l, "```") {
			prose[i] = lines[i]
			continue
		}
		lang, end := strings.TrimSpace(strings.TrimPrefix(l, "```")), i+1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: a fenced block that never ends", i+1)
		}
		if lang == "sh" {
			rs, err := blockRecipes(lines, i, end, claimed)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
		for j := i; j <= end; j++ {
			prose[j] = "\n"
		}
		i = end
	}
	p := strings.Join(prose, "")
	for _, m := range span.FindAllStringSubmatchIndex(p, -1) {
		cmd := lineBreak.ReplaceAllString(p[m[2]:m[3]], " ")
		if !strings.HasPrefix(cmd, "bin/backfill ") && cmd != "make demo" {
			continue
		}
		r := recipe{Line: 1 + strings.Count(p[:m[0]], "\n"), Cmd: cmd}
		if after := afterSpan.FindStringSubmatchIndex(p[m[1]:]); after != nil {
			text := p[m[1]+after[2] : m[1]+after[3]]
			if !strings.HasPrefix(text, "needs ") && !strings.HasPrefix(text, "run by ") {
				return nil, fmt.Errorf("line %d: marker %q beside an inline recipe: want \"needs WHAT\" or \"run by TEST\"", r.Line, text)
			}
			r.Skip = text
			claimed[1+strings.Count(p[:m[1]+after[1]], "\n")] = true
		}
		out = append(out, r)
	}
	// A marker quoted in inline code is prose about markers.
	bare := span.ReplaceAllStringFunc(p, func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, s)
	})
	for _, m := range marker.FindAllStringIndex(bare, -1) {
		if n := 1 + strings.Count(p[:m[1]], "\n"); !claimed[n] {
			return nil, fmt.Errorf("line %d: %s marks no recipe (put it on the line before a sh block, or right after an inline recipe)", n, p[m[0]:m[1]])
		}
	}
	slices.SortStableFunc(out, func(a, b recipe) int { return a.Line - b.Line })
	return dedupe(out), nil
}

// blockRecipes returns the commands of the sh block between the fences at lines open and end
// (0-based), applying the markers on the lines right above it and claiming those lines.
func blockRecipes(lines []string, open, end int, claimed map[int]bool) ([]recipe, error) {
	var rs []recipe
	for j := open + 1; j < end; j++ {
		l := strings.TrimRight(lines[j], "\n")
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		r := recipe{Line: j + 1, Cmd: l}
		for strings.HasSuffix(strings.TrimSpace(r.Cmd), `\`) && j+1 < end {
			j++
			r.Cmd += "\n" + strings.TrimRight(lines[j], "\n")
		}
		rs = append(rs, r)
	}
	for j := open - 1; j >= 0; j-- {
		m := markerLine.FindStringSubmatch(strings.TrimSpace(lines[j]))
		if m == nil {
			break
		}
		claimed[j+1] = true
		text := m[1]
		if server, ok := strings.CutPrefix(text, "uses "); ok {
			for k := range rs {
				rs[k].Uses = server
			}
			continue
		}
		if strings.HasPrefix(text, "needs ") || strings.HasPrefix(text, "run by ") {
			for k := range rs {
				rs[k].Skip = text
			}
			continue
		}
		cmd, why, ok := strings.Cut(text, " needs ")
		if !ok {
			return nil, fmt.Errorf("line %d: marker %q: want \"needs WHAT\", \"run by TEST\", \"uses SERVER\" or \"CMD needs WHAT\"", j+1, text)
		}
		hit := false
		for k := range rs {
			if strings.HasPrefix(rs[k].Cmd, cmd+" ") || rs[k].Cmd == cmd {
				rs[k].Skip, hit = "needs "+why, true
			}
		}
		if !hit {
			return nil, fmt.Errorf("line %d: marker %q: no line of the block at line %d starts with %q", j+1, text, open+1, cmd)
		}
	}
	return rs, nil
}

// dedupe keeps the first appearance of each command, its trailing comment aside: `make demo`
// is named many times and runs once.
func dedupe(rs []recipe) []recipe {
	seen := map[string]bool{}
	out := rs[:0]
	for _, r := range rs {
		words := strings.Fields(r.Cmd)
		if i := slices.IndexFunc(words, func(w string) bool { return strings.HasPrefix(w, "#") }); i >= 0 {
			words = words[:i]
		}
		if key := strings.Join(words, " "); !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}
