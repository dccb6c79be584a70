package offline

import (
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// functional are the predicates a subject has one object of at a time: a new object contradicts
// the old one. PREFERS is judged by its own rule (see contradicts).
var functional = set(`WORKS_AT LIVES_IN MEMBER_OF_TEAM HAS_PLAN HAS_STATUS LOCATED_IN MANAGED_BY PREFERS`)

// judge answers judge_fact. The new fact duplicates E<i> when their normalised sentences are
// equal, or when they have the same predicate, subject and object and end at the same time. It
// contradicts I<i> under the functional-predicate rule: same functional predicate, same subject,
// a different object, and intervals that can overlap. Subjects and objects are read back from
// the sentences the extractor writes (templates.go); sentences it cannot read are never judged
// contradictory. Only ids of the right namespace that were given are answered.
//
// Each contradiction quotes the words of the new sentence that exclude the old fact: "over Y" or
// "Y보다" when the new preference names the old one, otherwise the new object as written. The
// quote says what the rule saw; the temporal stage decides whether it counts (a new object
// alone excludes nothing under a relation of cardinality many).
func judge(in wire.JudgeInput) wire.JudgeOutput {
	out := wire.JudgeOutput{Duplicates: []string{}, Contradictions: []wire.Contradiction{}}
	n := readFact(in.New)
	for _, e := range in.Existing {
		if strings.HasPrefix(e.ID, "E") && duplicates(n, readFact(e)) {
			out.Duplicates = append(out.Duplicates, e.ID)
		}
	}
	for _, c := range in.Candidates {
		if !strings.HasPrefix(c.ID, "I") {
			continue
		}
		if cf := readFact(c); contradicts(n, cf) {
			out.Contradictions = append(out.Contradictions, wire.Contradiction{ID: c.ID, Quote: quote(in.New.Fact, n, cf)})
		}
	}
	return out
}

// quote is the part of the new sentence that excludes the old fact c: the comparison naming c's
// object ("over green tea", "아메리카노보다"), else the new object as the sentence writes it.
func quote(sentence string, n, c judged) string {
	if n.parts.Y != "" && same(n.parts.Y, c.parts.O) {
		for _, q := range []string{"over " + n.parts.Y, n.parts.Y + "보다"} {
			if strings.Contains(sentence, q) {
				return q
			}
		}
	}
	if strings.Contains(sentence, n.parts.O) {
		return n.parts.O
	}
	return strings.TrimSpace(sentence)
}

// judged is a fact with its sentence read back.
type judged struct {
	pred, text     string
	parts          factParts
	ok             bool // the sentence was read
	valid, invalid *time.Time
}

func readFact(f wire.FactIn) judged {
	j := judged{pred: strings.ToUpper(strings.TrimSpace(f.Predicate)), text: normText(f.Fact),
		valid: parseStamp(f.ValidAt), invalid: parseStamp(f.InvalidAt)}
	j.parts, _, j.ok = parseFact(j.pred, strings.TrimSpace(f.Fact))
	return j
}

func parseStamp(s *string) *time.Time {
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return nil
	}
	return &t
}

func same(a, b string) bool { return normName(a) == normName(b) }

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func duplicates(n, e judged) bool {
	if n.pred != e.pred {
		return false
	}
	if n.text == e.text {
		return true
	}
	return n.ok && e.ok && n.pred != "PLANS_TO" && same(n.parts.S, e.parts.S) &&
		same(n.parts.O, e.parts.O) && n.parts.O != "" && sameTime(n.invalid, e.invalid)
}

func contradicts(n, c judged) bool {
	if n.pred != c.pred || !functional[n.pred] || !n.ok || !c.ok || !same(n.parts.S, c.parts.S) {
		return false
	}
	if disjoint(n, c) {
		return false
	}
	if n.pred == "PREFERS" {
		// A preference contradicts another only when it says so: "coffee over tea" against
		// "tea", or a new favourite of the same category.
		np, cp := n.parts, c.parts
		return (np.Y != "" && same(np.Y, cp.O)) || (cp.Y != "" && same(cp.Y, np.O)) ||
			(np.C != "" && cp.C != "" && same(np.C, cp.C) && !same(np.O, cp.O))
	}
	return n.parts.O != "" && c.parts.O != "" && !same(n.parts.O, c.parts.O)
}

// disjoint reports whether two known intervals cannot overlap.
func disjoint(a, b judged) bool {
	return (a.invalid != nil && b.valid != nil && !a.invalid.After(*b.valid)) ||
		(b.invalid != nil && a.valid != nil && !b.invalid.After(*a.valid))
}
