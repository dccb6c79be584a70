package crash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// restarts are the stages a resumed run does again from their start. (Load kills are aimed by
// progress in testKills, not by the delays planned here.)
var restarts = map[string]bool{"ingest": true}

// loadAim scales a load kill's point (kill.frac) to the share of the rows written at which it
// lands: at most 76% (frac 0.95), so that a fifth of the rows (about 30 transactions of
// sinkBatch rows on the 3-conversation input) are still to be written when the poll sees its
// aim and the kill is sent.
// Aimed at 88% (3,502 of 3,975 rows), a CI run's load finished before the kill.
const loadAim = 0.8

// kill is one planned SIGKILL: delay after the stage's "stage starting" line.
type kill struct {
	stage string
	frac  float64 // where in the stage's reference span the kill aims
	delay time.Duration
}

// planKills spreads n kills over the stages: one in every stage that lasted at least minSpan in
// the reference run, the rest in stages drawn in proportion to their span, each at a uniform
// random point of the stage. Kills are ordered by stage, then by point; since a resumed run
// skips the units that finished before the last kill, the delay of a later kill in the same
// stage is the distance from the previous one. Ingest reads every row again on each run, so
// its delays are from the stage start. Delays are scaled by 0.7 (0.5 for ingest, done whole
// again): a resumed run can be faster than the reference (cached answers), and a kill that comes
// after the last stage ends misses.
func planKills(rng *rand.Rand, order []string, spans map[string]time.Duration, n int) []kill {
	const minSpan = 20 * time.Millisecond
	var eligible []string
	var total time.Duration
	for _, s := range order {
		if spans[s] >= minSpan {
			eligible = append(eligible, s)
			total += spans[s]
		}
	}
	var ks []kill
	for i := 0; i < n; i++ {
		stage := ""
		if i < len(eligible) {
			stage = eligible[i]
		} else {
			x := time.Duration(rng.Int64N(int64(total)))
			for _, s := range eligible {
				if x < spans[s] {
					stage = s
					break
				}
				x -= spans[s]
			}
		}
		ks = append(ks, kill{stage: stage, frac: 0.05 + 0.9*rng.Float64()})
	}
	rank := map[string]int{}
	for i, s := range order {
		rank[s] = i
	}
	sort.SliceStable(ks, func(a, b int) bool {
		if ks[a].stage != ks[b].stage {
			return rank[ks[a].stage] < rank[ks[b].stage]
		}
		return ks[a].frac < ks[b].frac
	})
	for i := range ks {
		from := 0.0
		if i > 0 && ks[i-1].stage == ks[i].stage && !restarts[ks[i].stage] {
			from = ks[i-1].frac
		}
		scale := 0.7
		if restarts[ks[i].stage] {
			scale = 0.5 // the whole stage again, as fast as the reference's or faster
		}
		ks[i].delay = time.Duration(scale * (ks[i].frac - from) * float64(spans[ks[i].stage]))
	}
	return ks
}

func TestPlanKills(t *testing.T) {
	order := []string{"ingest", "extract", "resolve", "temporal", "summarize", "embed", "community", "load"}
	spans := map[string]time.Duration{"ingest": 90 * time.Millisecond, "extract": 3 * time.Second,
		"resolve": 100 * time.Millisecond, "temporal": 400 * time.Millisecond, "summarize": 5 * time.Millisecond,
		"embed": 60 * time.Millisecond, "community": 400 * time.Millisecond, "load": 2 * time.Second}
	ks := planKills(rand.New(rand.NewPCG(1, 2)), order, spans, 10)
	if len(ks) != 10 {
		t.Fatalf("%d kills", len(ks))
	}
	var stages []string
	for i, k := range ks {
		stages = append(stages, k.stage)
		if k.stage == "summarize" {
			t.Errorf("kill %d aims at summarize, which is shorter than the minimum span", i)
		}
		if k.delay < 0 || k.delay > spans[k.stage] {
			t.Errorf("kill %d: delay %s outside the stage's span %s", i, k.delay, spans[k.stage])
		}
	}
	for _, s := range []string{"ingest", "extract", "resolve", "temporal", "embed", "community", "load"} {
		if countOf(stages, s) == 0 {
			t.Errorf("no kill in %s: %v", s, stages)
		}
	}
}

func countOf(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// TestResume runs the LoCoMo job (loading Neo4j) once without interruption, then again under
// SIGKILLs and under SIGINTs, and compares each final export and loaded graph with the
// uninterrupted one's.
func TestResume(t *testing.T) {
	f := newFixture(t)
	ref := f.runReference(t)
	t.Run("SIGKILL", func(t *testing.T) { testKills(t, f, ref) })
	t.Run("SIGINT", func(t *testing.T) { testInterrupts(t, f, ref) })
}

// killSeed is the kill pattern's seed: BACKFILL_CRASH_SEED, else 1.
func killSeed(t *testing.T) uint64 {
	v := os.Getenv("BACKFILL_CRASH_SEED")
	if v == "" {
		return 1
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("BACKFILL_CRASH_SEED: %v", err)
	}
	return seed
}

// testKills kills `backfill run` with SIGKILL at seeded random points spread over the stages,
// runs it again after each kill, and requires the final export to equal the uninterrupted
// run's, no answer committed before a kill to be requested again, and the stub's repeats to
// stay within what the kills left in flight.
func testKills(t *testing.T, f *fixture, ref reference) {
	kills := 10
	if f.full {
		kills = 20
	}
	seed := killSeed(t)
	plan := planKills(rand.New(rand.NewPCG(seed, 8)), ref.order, ref.spans, kills)
	s := f.startStub(t)
	job, checkpoint := f.job(t, "sigkill", s)
	f.clearGraph(t)
	done := map[string]bool{} // answer keys the checkpoint held after the kills so far
	seen := 0                 // answers accounted for so far
	var landed []string
	lost := 0 // answers given but not committed, or requests cut off, when their run was killed
	aborted := 0
	account := func(run int, killed bool) {
		t.Helper()
		if !s.WaitIdle(10 * time.Second) {
			t.Fatal("the stub is still serving requests of a dead run")
		}
		answers := s.Answers()
		var have map[string]bool
		if killed {
			have = committed(t, checkpoint, answers[seen:])
		}
		for _, a := range answers[seen:] {
			kept := true
			for _, k := range a.Keys {
				if done[k] {
					t.Errorf("run %d asked the stub again for a %s answer committed before an earlier kill", run, a.Task)
				}
				kept = kept && have[k]
			}
			if killed && !kept {
				lost++
			}
		}
		for k := range have {
			done[k] = true
		}
		seen = len(answers)
		if killed {
			lost += s.Aborted() - aborted
		}
		aborted = s.Aborted()
	}
	for i, k := range plan {
		if k.stage == "load" {
			f.clearGraph(t)
		}
		p, err := harness.Start(t.Context(), f.bin, []string{"run", job}, harness.Options{})
		if err != nil {
			t.Fatal(err)
		}
		at, aim := "-", "+"+k.delay.Round(time.Millisecond).String()
		if k.stage == "load" {
			// Aimed at a share of the rows written. A killed load records no group (all fit in one
			// chunk: nothing is recorded before the whole load is verified), so the database is
			// emptied first and the share counts this run's writes only.
			if u := finishedUnits(t, checkpoint)["load"]; u != 0 {
				t.Fatalf("kill %d: %d groups already recorded as loaded", i, u)
			}
			want := int(k.frac * loadAim * float64(len(ref.graph)))
			aim = fmt.Sprintf("at %d of %d rows", want, len(ref.graph))
			if f.waitLoad(t, p, want) {
				at = p.Stage()
				_ = p.Signal(syscall.SIGKILL)
			}
		} else if p.WaitStage(t.Context(), k.stage) {
			time.Sleep(k.delay)
			at = p.Stage()
			_ = p.Signal(syscall.SIGKILL) // fails only if the run already ended, which Wait shows
		}
		res, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if res.Signal == "" {
			t.Fatalf("kill %d (%s %s) missed: the run ended first with exit %d\n%s", i, k.stage, aim, res.Code, tail(res.Stderr))
		}
		landed = append(landed, at)
		t.Logf("kill %d: aimed at %s %s, landed in %s after %s", i, k.stage, aim, at, res.Elapsed.Round(time.Millisecond))
		account(i, true)
	}
	final := f.run(t, job)
	account(len(plan), false)
	if err := harness.CompareDirs(ref.export, f.export(t, job, "sigkill")); err != nil {
		t.Fatalf("after %d kills (seed %d): %v", len(plan), seed, err)
	}
	if d := harness.DiffLines(ref.graph, f.graph(t)); d != "" {
		t.Fatalf("after %d kills (seed %d) the graph in Neo4j differs from the uninterrupted load: %s", len(plan), seed, d)
	}
	st := stats(t, s)
	repeats := st.Repeated - ref.repeated
	t.Logf("seed %d: %d kills landed in %s; %d answers lost in flight; stub answered %d (reference %d), repeated %d (reference %d); final run %s",
		seed, len(landed), countBy(landed), lost, st.Answered, ref.answers, st.Repeated, ref.repeated, final.Elapsed.Round(time.Millisecond))
	if limit := int64(len(plan) * concurrency); repeats > limit {
		t.Errorf("stub repeated %d answers beyond the reference's %d; at most %d (kills × concurrency) may be lost in flight",
			repeats, ref.repeated, limit)
	}
	if repeats > int64(lost) {
		t.Errorf("stub repeated %d answers beyond the reference's, but only %d were lost or cut off in flight", repeats, lost)
	}
	if countOf(landed, "load") == 0 {
		t.Errorf("no kill landed in the load (%s)", countBy(landed))
	}
	distinct := map[string]bool{}
	for _, l := range landed {
		distinct[l] = true
	}
	if len(distinct) < 4 {
		t.Errorf("kills landed in only %d stages (%s); want them spread over at least 4", len(distinct), countBy(landed))
	}
}
