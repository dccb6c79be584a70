package temporal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages/resolve"
)

// Candidates of facts[i] among the earlier facts: Existing are those between the same two
// entities (shown as E0…), Invalidation every earlier fact that could be contradicted (I0…): the
// same unordered pair, or one shared endpoint in the same role with the same predicate. Each list
// keeps the max most recent facts.
type Candidates struct {
	Existing     []int
	Invalidation []int
}

// FindCandidates computes the candidates of every fact of a group. Declared facts (of record
// fields) have none and are nobody's candidate: their snapshots close them.
func FindCandidates(facts []resolve.Fact, max int) []Candidates {
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
		inv := append([]int(nil), out[i].Existing...)
		for _, j := range append(append([]int(nil), bySrc[f.Source+"\x00"+f.Predicate]...), byTgt[f.Target+"\x00"+f.Predicate]...) {
			if !seen[j] {
				seen[j] = true
				inv = append(inv, j)
			}
		}
		slices.Sort(inv)
		out[i].Existing = lastN(out[i].Existing, max)
		out[i].Invalidation = lastN(inv, max)
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
func JudgeInput(facts []resolve.Fact, i int, c Candidates) llm.JudgeInput {
	in := llm.JudgeInput{ReferenceTime: facts[i].ReferenceTime.UTC().Format(time.RFC3339), New: factIn("", facts[i]),
		Existing: []llm.FactIn{}, Candidates: []llm.FactIn{}}
	for k, j := range c.Existing {
		in.Existing = append(in.Existing, factIn(fmt.Sprintf("E%d", k), facts[j]))
	}
	for k, j := range c.Invalidation {
		in.Candidates = append(in.Candidates, factIn(fmt.Sprintf("I%d", k), facts[j]))
	}
	return in
}

func factIn(id string, f resolve.Fact) llm.FactIn {
	return llm.FactIn{ID: id, Predicate: f.Predicate, Fact: f.Fact, ValidAt: timeStr(f.ValidAt), InvalidAt: timeStr(f.InvalidAt)}
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

// Decode maps the LLM's namespaced ids back to fact indexes; malformed, unknown or repeated ids
// are ignored.
func Decode(out llm.JudgeOutput, c Candidates) Judgement {
	return Judgement{Duplicates: pick(out.Duplicates, "E", c.Existing), Contradictions: pick(out.Contradictions, "I", c.Invalidation)}
}

func pick(ids []string, prefix string, idx []int) []int {
	var out []int
	seen := map[int]bool{}
	for _, id := range ids {
		id = strings.TrimSpace(id)
		if !strings.HasPrefix(id, prefix) {
			continue
		}
		k, ok := index(id[len(prefix):])
		if !ok || k >= len(idx) || seen[idx[k]] {
			continue
		}
		seen[idx[k]] = true
		out = append(out, idx[k])
	}
	return out
}
