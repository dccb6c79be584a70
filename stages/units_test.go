package stages

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

func testStore(t *testing.T) *checkpoints.Store {
	t.Helper()
	s, err := checkpoints.Open(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// badAnswer is what the LLM client returns for an answer that stayed invalid.
func badAnswer(raw string) error {
	return fmt.Errorf("calling x: %w", &wire.ValidationError{Task: "x", Attempts: 3, Err: errors.New("parsing answer as JSON: unexpected EOF"), Raw: []byte(raw)})
}

// units makes n units; bad(i) says whether unit i gets a bad answer. Each commits through
// Commit with a Degraded, the way the stages do.
func units(env Env, n int, bad func(i int) bool) []Unit {
	var out []Unit
	for i := range n {
		key := fmt.Sprint("u", i)
		out = append(out, Unit{Key: key, Fingerprint: "fp", Run: func(ctx context.Context, fp string) error {
			var d Degraded
			if bad(i) {
				if err := d.Absorb(badAnswer("{\"cut")); err != nil {
					return err
				}
			}
			return Commit(ctx, env, "st", key, fp, &d, nil)
		}})
	}
	return out
}

func TestRunUnitsCountsFailedUnitsAndRetriesThem(t *testing.T) {
	ctx := context.Background()
	env := Env{Store: testStore(t), Concurrency: 3}
	st, err := RunUnits(ctx, env, "st", units(env, 6, func(i int) bool { return i%3 == 0 }), nil)
	if err != nil || st.Units != 6 || st.Failed != 2 {
		t.Fatalf("RunUnits = %+v, %v; want 6 units, 2 failed", st, err)
	}
	var failed []checkpoints.FailedUnit
	if err := env.Store.EachFailedUnit(ctx, func(f checkpoints.FailedUnit) error { failed = append(failed, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(failed) != 2 || failed[0].Unit != "u0" || failed[1].Unit != "u3" || failed[0].Raw != "{\"cut" ||
		!strings.Contains(failed[0].Reason, "unexpected EOF") {
		t.Fatalf("failed units %+v", failed)
	}
	done, err := env.Store.Fingerprints(ctx, "st")
	if err != nil || done["u1"] != "fp" || done["u0"] != checkpoints.FailedPrefix+"fp" {
		t.Fatalf("fingerprints %v, %v", done, err)
	}
	// The next run runs only the failed units; they succeed and the record is cleared.
	st, err = RunUnits(ctx, env, "st", units(env, 6, func(int) bool { return false }), done)
	if err != nil || st.Units != 2 || st.Skipped != 4 || st.Failed != 0 {
		t.Fatalf("second run = %+v, %v; want the 2 failed units run, 4 skipped", st, err)
	}
	counts, _ := env.Store.StageCounts(ctx)
	if len(counts) != 1 || counts[0].Units != 6 || counts[0].Failed != 0 {
		t.Fatalf("stage counts %+v", counts)
	}
}

func TestMaxFailedRatio(t *testing.T) {
	ctx := context.Background()
	half := 0.5
	env := Env{Store: testStore(t), Concurrency: 1, MaxFailedRatio: &half}
	// 5 of 8 fail: judged only once MinFailedSample units ran.
	if st, err := RunUnits(ctx, env, "st", units(env, 8, func(i int) bool { return i < 5 }), nil); err != nil || st.Failed != 5 {
		t.Fatalf("below the sample: %+v, %v", st, err)
	}
	env.Store = testStore(t)
	_, err := RunUnits(ctx, env, "st", units(env, 30, func(i int) bool { return i%3 != 0 }), nil)
	if !errors.Is(err, ErrTooManyFailed) || !strings.Contains(err.Error(), "limits.max_failed_ratio 0.5") {
		t.Fatalf("2 of 3 failing: %v, want ErrTooManyFailed", err)
	}
	zero := 0.0
	env = Env{Store: testStore(t), Concurrency: 1, MaxFailedRatio: &zero}
	if _, err := RunUnits(ctx, env, "st", units(env, 3, func(i int) bool { return i == 1 }), nil); !errors.Is(err, ErrTooManyFailed) {
		t.Fatalf("ratio 0 with a failure: %v", err)
	}
}

// TestDrainLeavesRefusedUnitsUncommitted: a unit whose call is refused by the drain
// (pacing.ErrStopped) is not committed nor counted, and the others in flight are not cancelled.
func TestDrainLeavesRefusedUnitsUncommitted(t *testing.T) {
	ctx := context.Background()
	stop := make(chan struct{})
	env := Env{Store: testStore(t), Concurrency: 2, Stop: stop}
	var cancelled atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	us := []Unit{
		{Key: "slow", Fingerprint: "fp", Run: func(ctx context.Context, fp string) error {
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
				cancelled.Add(1)
				return ctx.Err()
			}
			return env.Store.CommitUnit(ctx, "st", "slow", fp, nil)
		}},
		{Key: "refused", Fingerprint: "fp", Run: func(ctx context.Context, fp string) error {
			<-started // the slow unit is in flight when the stop comes
			close(stop)
			defer close(release)
			p := NewPool(ctx, 2)
			p.Go(func(context.Context) error { return fmt.Errorf("calling x: %w", pacing.ErrStopped) })
			return p.Wait()
		}},
		{Key: "never", Fingerprint: "fp", Run: func(context.Context, string) error { t.Error("a unit started after the stop"); return nil }},
	}
	st, err := RunUnits(ctx, env, "st", us, nil)
	if !errors.Is(err, ErrInterrupted) || cancelled.Load() != 0 {
		t.Fatalf("RunUnits = %+v, %v, %d cancelled; want ErrInterrupted and nothing cancelled", st, err, cancelled.Load())
	}
	done, _ := env.Store.Fingerprints(ctx, "st")
	if done["slow"] != "fp" || done["refused"] != "" {
		t.Fatalf("recorded %v; want the slow unit only", done)
	}
	if st.Units != 1 { // the stats count what was committed (issue 36: the report's units equal the store's)
		t.Errorf("stats count %d units; one was committed", st.Units)
	}
}

func TestDegradedPassesOtherErrors(t *testing.T) {
	var d Degraded
	other := errors.New("disk full")
	if d.Absorb(other) != other || d.Absorb(nil) != nil || d.Calls() != 0 {
		t.Fatal("Absorb took an error that is no bad answer")
	}
	if d.Absorb(badAnswer("a")) != nil || d.Absorb(fmt.Errorf("x: %w", &transport.StatusError{Status: 400})) != nil || d.Calls() != 2 {
		t.Fatal("Absorb refused bad answers")
	}
	f := d.Failure("st", "g")
	if f == nil || f.Raw != "a" || !strings.Contains(f.record().Reason, "2 calls failed") {
		t.Fatalf("failure %+v", f)
	}
	var none *Degraded
	if none.Absorb(badAnswer("a")) == nil {
		t.Fatal("a nil Degraded absorbed an error")
	}
}

// TestUnitsMarkTheirGroupInTheCache runs a unit of each of two groups that caches an answer,
// forgets an episode of one group, and completes the forgetting without asking again: the
// answer of that group's unit goes, the other group's stays, which holds only when the runner
// marked each unit's context with its group.
func TestUnitsMarkTheirGroupInTheCache(t *testing.T) {
	ctx := context.Background()
	env := Env{Store: testStore(t), Concurrency: 2}
	if _, err := env.Store.UpsertEpisodes(ctx, []graph.Episode{{UUID: "e1", GroupID: "g1", Content: "x"}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	var us []Unit
	for _, g := range []string{"g1", "g2"} {
		us = append(us, Unit{Key: g, Group: g, Fingerprint: "fp", Run: func(ctx context.Context, fp string) error {
			if err := env.Store.Put(ctx, "answer-of-"+g, cache.Entry{Namespace: "st", Response: []byte("{}")}); err != nil {
				return err
			}
			return env.Store.CommitUnit(ctx, "st", g, fp, nil)
		}})
	}
	if _, err := RunUnits(ctx, env, "st", us, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Forget(ctx, checkpoints.Deletion{Command: "test"}, []checkpoints.EpisodeRef{{UUID: "e1", GroupID: "g1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Purge(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]bool{"answer-of-g1": false, "answer-of-g2": true} {
		if _, ok, err := env.Store.Get(ctx, k); err != nil || ok != want {
			t.Errorf("cached %s kept = %v (%v), want %v", k, ok, err, want)
		}
	}
}
