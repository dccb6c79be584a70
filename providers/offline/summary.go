package offline

import (
	"sort"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// Summary length limits, in runes.
const (
	entitySummaryMax = 250
	mergedSummaryMax = 400
)

// summarize answers summarize_entities: each entity's distinct facts joined, cut at a word
// boundary; an entity without facts is summarised by its name.
func summarize(in wire.SummarizeInput) wire.SummarizeOutput {
	out := wire.SummarizeOutput{Summaries: make([]wire.EntitySummary, 0, len(in.Entities))}
	for _, e := range in.Entities {
		text := joinSentences(e.Facts)
		if text == "" {
			text = strings.TrimSpace(e.Name) + "."
		}
		out.Summaries = append(out.Summaries, wire.EntitySummary{ID: e.ID, Summary: truncateWords(text, entitySummaryMax)})
	}
	return out
}

// mergeSummaries answers merge_summaries: the sentences of all, in order, without repeats, cut at
// a word boundary.
func mergeSummaries(in wire.MergeInput) wire.MergeOutput {
	var parts []string
	for _, s := range in.Summaries {
		for _, sen := range splitSentences(s) {
			parts = append(parts, sen.text)
		}
	}
	return wire.MergeOutput{Summary: truncateWords(joinSentences(parts), mergedSummaryMax)}
}

// joinSentences joins sentences with single spaces, each ending in punctuation, dropping repeats.
func joinSentences(sentences []string) string {
	seen := map[string]bool{}
	var b strings.Builder
	for _, s := range sentences {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" || seen[normText(s)] {
			continue
		}
		seen[normText(s)] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "…") {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// nameCommunity answers name_community: the three most frequent names of the summary
// (capitalised word runs in English, nouns with a particle in Korean), most frequent first and
// ties by first appearance, as "A, B and C".
func nameCommunity(in wire.NameInput) wire.NameOutput {
	names := summaryNames(in.Summary)
	if len(names) == 0 {
		words := strings.Fields(in.Summary)
		if len(words) == 0 {
			return wire.NameOutput{Name: "Community"}
		}
		return wire.NameOutput{Name: strings.TrimRight(strings.Join(words[:min(3, len(words))], " "), ".,;:")}
	}
	if len(names) > 3 {
		names = names[:3]
	}
	if len(names) == 1 {
		return wire.NameOutput{Name: names[0]}
	}
	sep := " and "
	if hasHangul(in.Summary) {
		sep = ", "
	}
	return wire.NameOutput{Name: strings.Join(names[:len(names)-1], ", ") + sep + names[len(names)-1]}
}

// summaryNames lists the distinct names of a summary by frequency, then first appearance.
func summaryNames(summary string) []string {
	count := map[string]int{}
	var order []string
	spelling := map[string]string{}
	note := func(name string) {
		name = cleanName(name)
		key := normName(name)
		if key == "" {
			return
		}
		if count[key] == 0 {
			order = append(order, key)
			spelling[key] = name
		}
		count[key]++
	}
	for _, s := range splitSentences(summary) {
		toks := strings.Fields(s.text)
		for i := 0; i < len(toks); i++ {
			t := strings.Trim(toks[i], ",.;:!?()\"“”")
			if hasHangul(t) {
				if base := stripParticle(t); base != t && !koStop[base] && !koFirstPronoun[t] {
					note(base)
				}
				continue
			}
			j := i
			for j < len(toks) && nameWord(strings.Trim(toks[j], ",.;:!?()\"“”")) {
				j++
				if strings.ContainsAny(toks[j-1], ",.;:!?") {
					break
				}
			}
			if j > i {
				note(strings.Join(toks[i:j], " "))
				i = j - 1
			}
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return count[order[a]] > count[order[b]] })
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = spelling[k]
	}
	return out
}
