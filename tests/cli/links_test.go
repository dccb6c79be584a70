package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLinkTarget is the target of a Markdown link or image: ](target) or ](target "title").
	mdLinkTarget = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// heading is an ATX heading line.
	heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	// fence opens or closes a fenced block.
	fence = regexp.MustCompile("(?m)^```.*$")
)

// TestDocsLinks: every relative link of the README, of the pages under docs/ and of the other
// READMEs of the repository points at a file or directory that exists, and a link to a section
// (#anchor) at a heading of its page, as GitHub names heading anchors; so a page that moves or a
// section renamed in the docs cannot leave a link behind.
func TestDocsLinks(t *testing.T) {
	var pages []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (skipped[d.Name()] || d.Name() == "testdata" && filepath.Base(filepath.Dir(path)) == "bench") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 15 {
		t.Fatalf("%d Markdown pages found", len(pages))
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(b))
		return anchors[page]
	}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, page)
		for i, line := range strings.Split(outsideFences(string(b)), "\n") {
			for _, m := range mdLinkTarget.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %s: %v", rel, i+1, target, err)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[anchor] {
					t.Errorf("%s:%d: link %s: no heading of %s has the anchor #%s", rel, i+1, target, filepath.Base(dest), anchor)
				}
			}
		}
	}
}

// outsideFences blanks the lines of fenced blocks (line for line), whose text is code, not links.
func outsideFences(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if fence.MatchString(l) {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// headingAnchors returns the anchors GitHub gives the headings of a page: the heading's text in
// lower case, without the characters that are neither letters, digits, spaces, hyphens nor
// underscores, spaces turned to hyphens; a repeated anchor gets -1, -2, ….
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range heading.FindAllStringSubmatch(outsideFences(text), -1) {
		a := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[1])
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
