package temporal

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// randomGroup makes n facts of one subject in group order (reference times one day apart in
// 2026), with random starts (some unknown) in 2020–2025, some own ends, random contradictions
// and, when dups, random duplicate links.
func randomGroup(r *rand.Rand, n int, dups bool) ([]stages.ResolvedFact, []Judgement) {
	base := day("2020-01-01")
	facts := make([]stages.ResolvedFact, n)
	judge := make([]Judgement, n)
	for i := range facts {
		ref := day("2026-01-01").AddDate(0, 0, i)
		f := stages.ResolvedFact{UUID: fmt.Sprintf("f%02d", i), Source: "me", Target: fmt.Sprintf("o%d", i), Predicate: "WORKS_AT",
			Fact: fmt.Sprintf("f%02d", i), Kind: "state", Episodes: []string{fmt.Sprintf("ep%02d", i)}, ReferenceTime: ref, RecordTime: ref}
		if r.IntN(10) > 0 {
			v := base.AddDate(0, 0, 30*r.IntN(60)) // coarse, so equal starts happen
			f.ValidAt = &v
		}
		if r.IntN(5) == 0 {
			e := base.AddDate(0, 0, 30*r.IntN(70))
			f.InvalidAt = &e
		}
		facts[i] = Rules{}.Normalize(f)
		for j := 0; j < i; j++ {
			if r.IntN(2) == 0 {
				judge[i].Contradictions = append(judge[i].Contradictions, j)
			}
		}
		if dups && i > 0 && r.IntN(5) == 0 {
			judge[i].Duplicates = []int{r.IntN(i)}
		}
	}
	return facts, judge
}

// withRecordTimes returns a copy of facts recorded on random days among k, independent of group order.
func withRecordTimes(r *rand.Rand, facts []stages.ResolvedFact, k int) []stages.ResolvedFact {
	out := append([]stages.ResolvedFact(nil), facts...)
	for i := range out {
		out[i].RecordTime = day("2026-06-01").AddDate(0, 0, r.IntN(k))
	}
	return out
}

// oracle is the specification of the final end of every fact without duplicates: the earliest
// of its own end and the start of every contradicting fact that starts after it (or at the same
// time and later in group order), both starts known.
func oracle(facts []stages.ResolvedFact, judge []Judgement) map[string]*time.Time {
	out := map[string]*time.Time{}
	for i, f := range facts {
		end := f.InvalidAt
		for j, g := range facts {
			if i == j || f.ValidAt == nil || g.ValidAt == nil || !(slices.Contains(judge[i].Contradictions, j) || slices.Contains(judge[j].Contradictions, i)) {
				continue
			}
			if g.ValidAt.After(*f.ValidAt) || (g.ValidAt.Equal(*f.ValidAt) && j > i) {
				if end == nil || g.ValidAt.Before(*end) {
					end = g.ValidAt
				}
			}
		}
		out[f.UUID] = end
	}
	return out
}

// TestOrderIndependence: without duplicates, the final intervals equal the oracle whatever the
// order in which the facts were recorded, and the version log is well formed.
func TestOrderIndependence(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		facts, judge := randomGroup(r, 2+r.IntN(9), false)
		want := oracle(facts, judge)
		for _, k := range []int{1, 3, 20} {
			out, vs := Apply("g", withRecordTimes(r, facts, k), judge)
			if len(out) != len(facts) {
				t.Fatalf("seed %d: %d facts out of %d", seed, len(out), len(facts))
			}
			for _, f := range out {
				if !graph.SameTime(f.InvalidAt, want[f.UUID]) {
					t.Fatalf("seed %d k %d: %s invalid_at = %v, want %v", seed, k, f.UUID, f.InvalidAt, want[f.UUID])
				}
			}
			checkLog(t, out, vs)
		}
	}
}

// checkLog asserts the version log's shape: per fact, contiguous seqs from 0, non-decreasing
// record times, an end that only moves earlier, expired_at set at the first closed version.
func checkLog(t *testing.T, out []graph.Fact, vs []graph.FactVersion) {
	t.Helper()
	for _, f := range out {
		fv := versionsOf(vs, f.UUID)
		if len(fv) == 0 {
			t.Fatalf("%s has no version", f.UUID)
		}
		var expired *time.Time
		for i, v := range fv {
			if v.Seq != i || (i > 0 && v.RecordTime.Before(fv[i-1].RecordTime)) {
				t.Fatalf("%s: bad sequence %+v", f.UUID, fv)
			}
			if i > 0 && (v.InvalidAt == nil || (fv[i-1].InvalidAt != nil && !v.InvalidAt.Before(*fv[i-1].InvalidAt))) {
				t.Fatalf("%s: end does not move earlier: %+v", f.UUID, fv)
			}
			if v.InvalidAt != nil && expired == nil {
				expired = &fv[i].RecordTime
			}
			if !graph.SameTime(v.ExpiredAt, expired) {
				t.Fatalf("%s version %d expired_at %v, want %v", f.UUID, i, v.ExpiredAt, expired)
			}
		}
		last := fv[len(fv)-1]
		if !graph.SameTime(last.InvalidAt, f.InvalidAt) || !graph.SameTime(last.ExpiredAt, f.ExpiredAt) {
			t.Fatalf("%s: last version %+v differs from the fact %+v", f.UUID, last, f)
		}
	}
}

// TestVersionLogReplaysPrefixes: with duplicates and random record times, the state the version
// log gives as known at every record time T equals applying the rules to the facts recorded by T.
func TestVersionLogReplaysPrefixes(t *testing.T) {
	for seed := uint64(1); seed <= 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		facts, judge := randomGroup(r, 2+r.IntN(9), true)
		facts = withRecordTimes(r, facts, 4)
		out, vs := Apply("g", facts, judge)
		checkLog(t, out, vs)
		for k := 0; k < 4; k++ {
			at := day("2026-06-01").AddDate(0, 0, k)
			sub, subJudge := prefix(facts, judge, at)
			wantOut, _ := Apply("g", sub, subJudge)
			got := knownAt(out, vs, at)
			if len(got) != len(wantOut) {
				t.Fatalf("seed %d at %v: log knows %d facts, replay %d", seed, at, len(got), len(wantOut))
			}
			for _, w := range wantOut {
				g, ok := got[w.UUID]
				if !ok || !graph.SameTime(g.InvalidAt, w.InvalidAt) || !graph.SameTime(g.ExpiredAt, w.ExpiredAt) || !graph.SameTime(g.ValidAt, w.ValidAt) {
					t.Fatalf("seed %d at %v: %s log %+v, replay %+v", seed, at, w.UUID, g, w)
				}
			}
		}
	}
}

// prefix keeps the facts recorded by at, with their judgements renumbered.
func prefix(facts []stages.ResolvedFact, judge []Judgement, at time.Time) ([]stages.ResolvedFact, []Judgement) {
	idx := map[int]int{}
	var sub []stages.ResolvedFact
	var sj []Judgement
	for i, f := range facts {
		if f.RecordTime.After(at) {
			continue
		}
		idx[i] = len(sub)
		sub = append(sub, f)
		var j Judgement
		for _, d := range judge[i].Duplicates {
			if k, ok := idx[d]; ok {
				j.Duplicates = append(j.Duplicates, k)
			}
		}
		for _, c := range judge[i].Contradictions {
			if k, ok := idx[c]; ok {
				j.Contradictions = append(j.Contradictions, k)
			}
		}
		sj = append(sj, j)
	}
	return sub, sj
}

// knownAt is the last version of every fact recorded by at.
func knownAt(out []graph.Fact, vs []graph.FactVersion, at time.Time) map[string]graph.FactVersion {
	got := map[string]graph.FactVersion{}
	for _, v := range vs {
		if !v.RecordTime.After(at) {
			got[v.FactUUID] = v
		}
	}
	return got
}
