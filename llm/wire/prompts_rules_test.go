package wire

import (
	"strings"
	"testing"
)

// sectionRules are the rule lines ("- …") of a prompt's section, from its heading ("FACTS:") to
// the next blank line.
func sectionRules(t *testing.T, file, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(builtinPrompt(t, file), "\n"+heading)
	if !ok {
		t.Fatalf("prompts/%s has no %s section", file, heading)
	}
	var out []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if strings.TrimSpace(line) == "" {
			break
		}
		if strings.HasPrefix(line, "- ") {
			out = append(out, line)
		}
	}
	return out
}

// TestWindowPromptKeepsTheEpisodeRules: the window prompt (extract_window) states every rule
// of the one-episode prompt (extract_graph) for entities and facts, in its own words where a
// window needs them. Each rule of extract_graph must have a rule in extract_window that starts
// with the same words. The temporal rules of issue 44 went into extract_graph alone, and the
// windows measured against it ran without them (bench/results.md, issue-43-grammar).
func TestWindowPromptKeepsTheEpisodeRules(t *testing.T) {
	const lead = 16 // characters of a rule that name it: "- kind \"state\" (", "- A stated end ("
	for _, heading := range []string{"ENTITIES:", "FACTS:"} {
		window := sectionRules(t, "extract_window.system.tmpl", heading)
		for _, rule := range sectionRules(t, "extract_graph.system.tmpl", heading) {
			if strings.HasPrefix(rule, "- A message's speaker") { // "Every speaker is one" in a window
				continue
			}
			found := false
			for _, w := range window {
				if strings.HasPrefix(w, rule[:min(lead, len(rule))]) {
					found = true
				}
			}
			if !found {
				t.Errorf("extract_window.system.tmpl lacks the %s rule of extract_graph.system.tmpl %q", heading, rule)
			}
		}
	}
}
