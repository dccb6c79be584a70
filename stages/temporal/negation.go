package temporal

import (
	"regexp"
	"strings"

	"github.com/tkgraph/backfill/stages/resolve"
)

// negationCues are the words by which a fact sentence says, in English or Korean, that another
// fact is over or false: negation ("not", "no longer", "않", "더 이상"), an ending ("left",
// "quit", "cancelled", "postponed", "퇴사", "그만") and the stock changes of business records ("back in
// stock", "sold out", "재입고", "품절"). comparisonCues say that the new fact holds in place of
// another thing ("over", "instead of", "보다", "대신"): they exclude only a fact about that other
// thing, so they count only for a fact between other entities, whose name the quote must hold.
// Both are matched on normalized text (normText). Together they are what "explicitly negates"
// means to the rules (Rules.check).
var negationCues = cues(
	`\bnot\b`, `n't\b`, `\bnever\b`, `\bno\b`, `\bno longer\b`, `\bany ?more\b`, `\bnone\b`,
	`\bleft\b`, `\bleaves\b`, `\bleaving\b`, `\bquit(?:s|ting)?\b`, `\bresign(?:ed|s|ing)?\b`, `\bretired?\b`,
	`\bstop(?:ped|s)\b`, `\bend(?:ed|s)\b`, `\bfinished\b`, `\bmoved (?:out|away|from)\b`, `\bbroke up\b`,
	`\bdivorced?\b`, `\bseparated\b`, `\bformer(?:ly)?\b`, `\bex-`, `\bused to\b`, `\bpreviously\b`,
	`\bcancel(?:l?ed|s)\b`, `\breplac(?:ed|es|ing)\b`, `\bswitched\b`, `\bchanged\b`, `\b(?:up|down)graded\b`,
	`\bsold\b`, `\bclosed\b`, `\bexpired\b`, `\bterminated\b`, `\bunsubscribed\b`, `\bdropped\b`, `\bgave up\b`,
	`\bpostponed\b`, `\brescheduled\b`, `\bdelayed\b`, `\bback in stock\b`, `\brestocked\b`, `\bout of stock\b`, `\bsold out\b`, `\bin stock\b`, `\bavailable again\b`,
	`않`, `(?:^|\s)안\s`, `(?:^|\s)못\s`, `없`, `아니`, `아닌`, `그만`, `더 ?이상`, `퇴사`, `퇴직`, `은퇴`, `떠나`, `떠났`,
	`끝나`, `끝났`, `취소`, `해지`, `탈퇴`, `옮겼`, `옮긴`, `바꿨`, `바꾼`, `헤어`, `이혼`, `중단`, `폐업`, `재입고`, `입고`,
	`품절`, `매진`, `판매 ?중`, `이사`, `연기`, `미뤄`, `미뤘`,
)

var comparisonCues = cues(`\bover\b`, `\binstead of\b`, `\brather than\b`, `\bmore than\b`, `보다`, `대신`)

func cues(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// normText is a sentence or quote as the rules compare them: resolve.Normalize with typographic
// quotes straightened and trailing sentence punctuation removed.
func normText(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(s)
	return strings.TrimRight(resolve.Normalize(s), ".!?。")
}

// newCue reports whether text (normalized) holds a cue that old (normalized) does not: a
// negation the new statement adds, or with comparisons also a comparison.
func newCue(text, old string, comparisons bool) bool {
	lists := [][]*regexp.Regexp{negationCues}
	if comparisons {
		lists = append(lists, comparisonCues)
	}
	for _, list := range lists {
		for _, re := range list {
			if re.MatchString(text) && !re.MatchString(old) {
				return true
			}
		}
	}
	return false
}
