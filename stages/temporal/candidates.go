package temporal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Candidates of facts[i] among the earlier facts. Existing are those between the same two
// entities (shown to the judge as E0…, for duplicates). Of the earlier facts that could be
// contradicted (the same unordered pair, or one shared endpoint in the same role with the same
// predicate), Settled are contradicted by the relation's cardinality with no judge: a relation
// of cardinality one from the same source with another target; Invalidation (shown as I0…) are
// those the judge may still close (Rules.eligible); Ineligible counts the rest, which no answer
// could close. Each list keeps the max most recent facts.
type Candidates struct {
	Existing     []int
	Invalidation []int
	Settled      []int
	Ineligible   int
}

// Judge reports whether the fact needs a judgement: it has an earlier fact to compare with.
func (c Candidates) Judge() bool { return len(c.Existing) > 0 || len(c.Invalidation) > 0 }

// Saved reports whether the fact had contradiction candidates but needs no judgement, because
// the rules settled or excluded every one of them: a judge call the cardinality rule saved.
func (c Candidates) Saved() bool { return !c.Judge() && (len(c.Settled) > 0 || c.Ineligible > 0) }

// FindCandidates computes the candidates of every fact of a group under rules. Declared facts
// (of record fields) have none and are nobody's candidate: their snapshots close them.
func FindCandidates(facts []stages.ResolvedFact, max int, rules Rules) []Candidates {
	out := make([]Candidates, len(facts))
	bySrc := map[string][]int{} // source + predicate → fact indexes
	byTgt := map[string][]int{}
	byPair := map[string][]int{}
	for i, f := range facts {
		if f.Declared {
			continue
		}
		pair := pairKey(f.Source, f.Target)
		seen := map[int]bool{}
		for _, j := range byPair[pair] {
			out[i].Existing = append(out[i].Existing, j)
			seen[j] = true
		}
		cands := append([]int(nil), out[i].Existing...)
		for _, j := range append(append([]int(nil), bySrc[f.Source+"\x00"+f.Predicate]...), byTgt[f.Target+"\x00"+f.Predicate]...) {
			if !seen[j] {
				seen[j] = true
				cands = append(cands, j)
			}
		}
		slices.Sort(cands)
		var inv, settled []int
		for _, j := range cands {
			switch {
			case rules.settles(f, facts[j]):
				settled = append(settled, j)
			case rules.eligible(f, facts[j]):
				inv = append(inv, j)
			default:
				out[i].Ineligible++
			}
		}
		out[i].Existing = lastN(out[i].Existing, max)
		out[i].Invalidation = lastN(inv, max)
		out[i].Settled = lastN(settled, max)
		byPair[pair] = append(byPair[pair], i)
		bySrc[f.Source+"\x00"+f.Predicate] = append(bySrc[f.Source+"\x00"+f.Predicate], i)
		byTgt[f.Target+"\x00"+f.Predicate] = append(byTgt[f.Target+"\x00"+f.Predicate], i)
	}
	return out
}

func pairKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "\x00" + b
}

func lastN(xs []int, n int) []int {
	if n > 0 && len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// JudgeInput renders the judgement request of facts[i].
func JudgeInput(facts []stages.ResolvedFact, i int, c Candidates) wire.JudgeInput {
	in := wire.JudgeInput{ReferenceTime: facts[i].ReferenceTime.UTC().Format(time.RFC3339), New: factIn("", facts[i]),
		Existing: []wire.FactIn{}, Candidates: []wire.FactIn{}}
	for k, j := range c.Existing {
		in.Existing = append(in.Existing, factIn(fmt.Sprintf("E%d", k), facts[j]))
	}
	for k, j := range c.Invalidation {
		in.Candidates = append(in.Candidates, factIn(fmt.Sprintf("I%d", k), facts[j]))
	}
	return in
}

func factIn(id string, f stages.ResolvedFact) wire.FactIn {
	return wire.FactIn{ID: id, Predicate: f.Predicate, Fact: f.Fact, ValidAt: timeStr(f.ValidAt), InvalidAt: timeStr(f.InvalidAt)}
}

func timeStr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// index reads a list index written as the ids are: decimal digits, no sign, no leading zero.
func index(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	k, err := strconv.Atoi(s)
	return k, err == nil
}

// pick maps namespaced duplicate ids back to fact indexes; malformed, unknown or repeated ids
// are ignored.
func pick(ids []string, prefix string, idx []int) []int {
	var out []int
	seen := map[int]bool{}
	for _, id := range ids {
		if k, ok := lookup(id, prefix, idx); ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// lookup reads one namespaced id ("E0", " I12 ") as the fact index it names in idx.
func lookup(id, prefix string, idx []int) (int, bool) {
	id = strings.TrimSpace(id)
	if !strings.HasPrefix(id, prefix) {
		return 0, false
	}
	k, ok := index(id[len(prefix):])
	if !ok || k >= len(idx) {
		return 0, false
	}
	return idx[k], true
}
