package window

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// conversations is how many LoCoMo conversations the tests read (788 episodes).
const conversations = 2

// windowed are the settings of every run: windows of 4 episodes on average.
var windowed = []string{"--set", "stages.extract.window=4"}

// opts are the extract options those settings give (the job's defaults besides).
var opts = extract.Options{Window: 4, WindowTokens: extract.DefaultWindowTokens, WindowGap: extract.DefaultWindowGap,
	Context: extract.DefaultContext, ContextTokens: extract.DefaultContextTokens}

// fixture is the built binary and the LoCoMo subset of a test.
type fixture struct{ *harness.LoCoMoRun }

func newFixture(t *testing.T) *fixture {
	return &fixture{harness.NewLoCoMoRun(t, conversations)}
}

// run runs `backfill CMD JOB ARGS… --report FILE` with the window settings, requires exit 0
// and returns the report (of forget: that of the run that computed the groups again).
func (f *fixture) run(t *testing.T, cmd, job string, args ...string) report.Report {
	t.Helper()
	rep := filepath.Join(f.Dir, fmt.Sprintf("report-%d.json", time.Now().UnixNano()))
	all := append(append([]string{cmd, job, "--report", rep}, windowed...), args...)
	res, err := harness.Run(t.Context(), f.Bin, all, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("backfill %s: exit %d\n%s", strings.Join(all, " "), res.Code, harness.Tail(res.Stderr, 25))
	}
	var r report.Report
	if cmd == "forget" { // the report of the run that computed the groups again
		var fr struct {
			Run *report.Report `json:"run"`
		}
		harness.ReadJSON(t, rep, &fr)
		if fr.Run == nil {
			t.Fatalf("backfill forget ran no stage")
		}
		return *fr.Run
	}
	harness.ReadJSON(t, rep, &r)
	return r
}

func (f *fixture) export(t *testing.T, job, name string) string {
	t.Helper()
	out := filepath.Join(f.Dir, name+"-export")
	if err := harness.Export(t.Context(), f.Bin, job, out, windowed...); err != nil {
		t.Fatal(err)
	}
	return out
}

// extraction is a store's extract records and outputs, by episode.
type extraction struct {
	fingerprints map[string]string
	outputs      map[string]string
}

func readExtraction(t *testing.T, checkpoint string) extraction {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	groups, err := store.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	x := extraction{fingerprints: map[string]string{}, outputs: map[string]string{}}
	for _, g := range groups {
		fps, err := store.EpisodeFingerprints(ctx, extract.Stage, g)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := store.GroupOutputs(ctx, extract.Stage, g)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range fps {
			x.fingerprints[k] = v
		}
		for k, v := range outs {
			x.outputs[k] = string(v)
		}
	}
	return x
}

func TestWindowedExtraction(t *testing.T) {
	f := newFixture(t)
	onlineBase := f.Stub(t)
	refJob, refCP := f.Job(t, "online", onlineBase)
	ref := f.run(t, "run", refJob)
	refExport := f.export(t, refJob, "online")
	refX := readExtraction(t, refCP)
	if ref.ExtractWindows == 0 || ref.LLMByStage[extract.Stage].Calls >= ref.Episodes/2 {
		t.Fatalf("online run: %d windows, %d extract calls for %d episodes", ref.ExtractWindows, ref.LLMByStage[extract.Stage].Calls, ref.Episodes)
	}
	t.Logf("online: %d episodes in %d windows, %d extract calls, %d facts", ref.Episodes, ref.ExtractWindows,
		ref.LLMByStage[extract.Stage].Calls, ref.Facts)

	t.Run("batch equals online", func(t *testing.T) {
		base := f.Stub(t)
		job, _ := f.Job(t, "batch", base)
		rep := f.run(t, "run", job, "--set", "llm.mode=batch", "--set", "embedder.mode=batch", "--set", "llm.batch.poll_seconds=0.05")
		if err := harness.CompareDirs(refExport, f.export(t, job, "batch")); err != nil {
			t.Fatalf("the batch run's export differs from the online run's: %v", err)
		}
		if st := harness.MustStubStats(t, base); st.ChatCalls != 0 || rep.ExtractWindows != ref.ExtractWindows || rep.Stages[extract.Stage].Waves != 2 {
			t.Fatalf("batch run: %d online chat calls, %d windows (online %d), extract waves %d",
				st.ChatCalls, rep.ExtractWindows, ref.ExtractWindows, rep.Stages[extract.Stage].Waves)
		}
	})

	t.Run("interrupted and resumed", func(t *testing.T) {
		// A stub slow enough that extraction takes seconds, so the signals land inside it.
		base := f.Stub(t, "--latency", "40ms")
		job, _ := f.Job(t, "resumed", base)
		for i := range 2 {
			p, err := harness.Start(t.Context(), f.Bin, append([]string{"run", job}, windowed...), harness.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !p.WaitStage(t.Context(), extract.Stage) {
				res, _ := p.Wait()
				t.Fatalf("run %d ended before extraction: exit %d\n%s", i, res.Code, harness.Tail(res.Stderr, 25))
			}
			time.Sleep(time.Duration(500*(i+1)) * time.Millisecond)
			at := p.Stage()
			if err := p.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			res, err := p.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Code != 130 || at != extract.Stage {
				t.Fatalf("run %d: SIGINT in %s, exit %d; want 130 in extract\n%s", i, at, res.Code, harness.Tail(res.Stderr, 25))
			}
		}
		rep := f.run(t, "run", job)
		if err := harness.CompareDirs(refExport, f.export(t, job, "resumed")); err != nil {
			t.Fatalf("the resumed run's export differs from an uninterrupted run's: %v", err)
		}
		if st := harness.MustStubStats(t, base); st.Repeated != 0 {
			t.Fatalf("the stub answered %d requests twice: a resumed run asked an answered window again", st.Repeated)
		}
		if rep.Stages[extract.Stage].Skipped == 0 {
			t.Fatalf("the last run skipped no extraction: %+v", rep.Stages[extract.Stage])
		}
	})

	t.Run("shards see the same windows", func(t *testing.T) {
		base := f.Stub(t)
		for i := range 2 {
			job, cp := f.Job(t, fmt.Sprintf("shard-%d", i), base)
			f.run(t, "run", job, "--shard", fmt.Sprintf("%d/2", i))
			x := readExtraction(t, cp)
			if len(x.fingerprints) == 0 || len(x.fingerprints) == len(refX.fingerprints) {
				t.Fatalf("shard %d holds %d of %d episodes", i, len(x.fingerprints), len(refX.fingerprints))
			}
			for ep, fp := range x.fingerprints {
				if fp != refX.fingerprints[ep] || x.outputs[ep] != refX.outputs[ep] {
					t.Fatalf("shard %d: episode %s's extraction differs from the unsharded run's", i, ep)
				}
			}
		}
	})

	t.Run("forget asks only the affected windows", func(t *testing.T) {
		base := f.Stub(t)
		job, cp := f.Job(t, "forget", base)
		f.run(t, "run", job)
		inside, shown, changes := pick(t, cp)
		for _, c := range []struct {
			name    string
			episode graph.Episode
			want    int
		}{{"inside a window", inside, 1}, {"in the context of the next windows", shown, changes}} {
			rep := f.run(t, "forget", job, "--episode", c.episode.RecordKey)
			ex := rep.LLMByStage[extract.Stage]
			if ex.Calls != c.want || ex.CacheHits == 0 {
				t.Fatalf("forgetting an episode %s: %d extract calls, %d cache hits; want %d calls, the other windows from the cache",
					c.name, ex.Calls, ex.CacheHits, c.want)
			}
			t.Logf("forgetting an episode %s: %d extract call(s), %d from the cache", c.name, ex.Calls, ex.CacheHits)
		}
	})
}

// pick finds, in the first group of the store, an episode inside a window that no other window
// shows (its first, in a window longer than the context before the next one) and, in a later
// window of the same session as the window after it, an episode among the stages.extract.context
// episodes before the next window (not the window's cut point), with the number of windows its
// removal changes: its own and each window asked that starts within the context after it (the
// context those windows show shifts).
func pick(t *testing.T, checkpoint string) (inside, shown graph.Episode, changes int) {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	groups, err := store.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := store.GroupEpisodes(ctx, groups[0])
	if err != nil {
		t.Fatal(err)
	}
	g := extract.NewGroup(eps, opts)
	wins := extract.Windows(eps, opts)
	at := -1
	for k, w := range wins[:len(wins)-1] {
		if at < 0 && len(w) > opts.Context+1 {
			inside, at = eps[w[0]], k
			continue
		}
		next := wins[k+1]
		if at < 0 || k < at+2 || len(w) < 2 || eps[next[0]].SourceDescription != eps[w[0]].SourceDescription || chitchat(g, next) {
			continue
		}
		i := w[len(w)-2]
		changes = 1
		for _, later := range wins[k+1:] {
			if later[0]-i <= opts.Context && !chitchat(g, later) {
				changes++
			}
		}
		return inside, eps[i], changes
	}
	t.Fatalf("no windows fit the test among %d", len(wins))
	return
}

// chitchat reports whether a window asks nothing (each of its messages chit-chat by the stage's
// rule): forgetting into its context would ask nothing.
func chitchat(g *extract.Group, w []int) bool {
	for _, i := range w {
		if g.Plan(i).Ask {
			return false
		}
	}
	return true
}
