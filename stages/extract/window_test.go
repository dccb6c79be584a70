package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// chat is a group of n messages of two speakers, a minute apart, with a session break (a day)
// before every 25th.
func chat(group string, n int) []graph.Episode {
	var eps []graph.Episode
	at := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		if i > 0 && i%25 == 0 {
			at = at.Add(24 * time.Hour)
		}
		at = at.Add(time.Minute)
		eps = append(eps, graph.Episode{UUID: graph.EpisodeID(group, fmt.Sprint(i)), GroupID: group, Source: graph.SourceMessage,
			SourceDescription: "chat", Speaker: []string{"Ann", "Ben"}[i%2], Content: fmt.Sprintf("Message %d.", i),
			ReferenceTime: at, Seq: int64(i)})
	}
	return eps
}

// ids lists the windows by their episodes' uuids.
func ids(eps []graph.Episode, wins [][]int) [][]string {
	var out [][]string
	for _, w := range wins {
		var u []string
		for _, i := range w {
			u = append(u, eps[i].UUID)
		}
		out = append(out, u)
	}
	return out
}

var windowOpts = Options{Window: 4, WindowTokens: 1000, WindowGap: time.Hour}

// TestWindowsRules: every window holds consecutive messages of one session, at most three times
// Window of them, and ends at a cut point, its size bound or a session break; JSON episodes are
// left out; Window 1 or less is one episode per window.
func TestWindowsRules(t *testing.T) {
	eps := chat("g", 200)
	eps[10].Source, eps[10].Record = graph.SourceJSON, &graph.Record{}
	wins := Windows(eps, windowOpts)
	seen := 0
	for k, w := range wins {
		if len(w) == 0 || len(w) > windowOpts.maxWindow() {
			t.Fatalf("window %d holds %d episodes", k, len(w))
		}
		for j, i := range w {
			if i == 10 {
				t.Fatal("a JSON episode is in a window")
			}
			if j > 0 && eps[i].ReferenceTime.Sub(eps[w[j-1]].ReferenceTime) >= time.Hour {
				t.Fatalf("window %d spans a session break", k)
			}
		}
		last := eps[w[len(w)-1]]
		if k+1 < len(wins) {
			next := eps[wins[k+1][0]]
			if !cut(last.UUID, 4) && len(w) < 12 && next.ReferenceTime.Sub(last.ReferenceTime) < time.Hour {
				t.Fatalf("window %d ends at no rule", k)
			}
		}
		seen += len(w)
	}
	if seen != 199 {
		t.Fatalf("windows hold %d episodes, want 199", seen)
	}
	if mean := float64(seen) / float64(len(wins)); mean < 2.5 || mean > 5 {
		t.Errorf("%d windows, %.1f episodes each on average; want about 4", len(wins), mean)
	}
	for _, w := range []int{0, 1} {
		if got := Windows(eps, Options{Window: w}); len(got) != 199 {
			t.Errorf("window %d: %d windows, want one per message", w, len(got))
		}
	}
	small := windowOpts
	small.WindowTokens = 8 // "Message 12." is 3 tokens: two fit
	for _, w := range Windows(eps, small) {
		if len(w) > 2 {
			t.Fatalf("a window of %d episodes passed window_tokens", len(w))
		}
	}
}

// TestWindowsStableUnderAppend: the windows of a group's first n episodes are those of the whole
// group, except the last one, which the episodes after may join.
func TestWindowsStableUnderAppend(t *testing.T) {
	all := chat("g", 120)
	full := ids(all, Windows(all, windowOpts))
	for n := 1; n < len(all); n++ {
		part := ids(all[:n], Windows(all[:n], windowOpts))
		closed := part[:len(part)-1]
		if !reflect.DeepEqual(closed, full[:len(closed)]) {
			t.Fatalf("after %d episodes: the closed windows differ from the whole group's", n)
		}
		last, whole := part[len(part)-1], full[len(closed)]
		if !slices.Equal(last, whole[:len(last)]) {
			t.Fatalf("after %d episodes: the last window %v does not start the whole group's %v", n, last, whole)
		}
	}
}

// TestWindowsStableUnderForget: removing an episode (forget) changes the window that held it and
// no other, but for the window after when the removed one was a cut point (the two join), and
// the windows a moved size bound shifts up to the next cut point.
func TestWindowsStableUnderForget(t *testing.T) {
	all := chat("g", 120)
	full := ids(all, Windows(all, windowOpts))
	bounded := 0
	for r := range all {
		rest := slices.Delete(slices.Clone(all), r, r+1)
		got := ids(rest, Windows(rest, windowOpts))
		gone := all[r].UUID
		var changed [][]string
		for _, w := range full {
			if !slices.ContainsFunc(got, func(g []string) bool { return slices.Equal(g, w) }) {
				changed = append(changed, w)
			}
		}
		held := slices.IndexFunc(changed, func(w []string) bool { return slices.Contains(w, gone) })
		if held < 0 {
			t.Fatalf("forgetting episode %d changed no window holding it", r)
		}
		allowed := 1
		if w := changed[held]; w[len(w)-1] == gone && cut(gone, windowOpts.Window) {
			allowed = 2 // joined with the next
		}
		if len(changed) > allowed {
			for _, w := range changed {
				if len(w) == windowOpts.maxWindow() {
					bounded++ // a size bound moved: allowed, counted
					allowed = len(changed)
					break
				}
			}
		}
		if len(changed) > allowed {
			t.Fatalf("forgetting episode %d changed %d windows: %v", r, len(changed), changed)
		}
	}
	t.Logf("%d of %d forgets moved a size bound", bounded, len(all))
}

// TestWindowsStableUnderSharding: a group's windows and fingerprints are the same in a store
// holding other groups and in one holding it alone (a shard).
func TestWindowsStableUnderSharding(t *testing.T) {
	ctx := context.Background()
	key := "k"
	units := func(groups ...string) map[string]string {
		store := newStore(t)
		for _, g := range groups {
			if _, err := store.UpsertEpisodes(ctx, chat(g, 60), time.Unix(0, 0)); err != nil {
				t.Fatal(err)
			}
		}
		out := map[string]string{}
		err := eachUnit(ctx, store, windowOpts, key, "b", func(u unit) error {
			for _, ep := range u.eps {
				out[ep.UUID] = u.fp
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if all, alone := units("a", "b", "c"), units("b"); len(all) != 60 || !reflect.DeepEqual(all, alone) {
		t.Fatalf("the group's window fingerprints differ with other groups in the store")
	}
}

func newStore(t *testing.T) *checkpoints.Store {
	t.Helper()
	store, err := checkpoints.Open(context.Background(), t.TempDir()+"/cp.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// windowLLM answers extract_window from a script: for each window (keyed by its first
// episode's content) the answer to give; it counts the windows asked.
type windowLLM struct {
	mu      sync.Mutex
	answers map[string]wire.WindowOutput
	asked   []string
	fail    string // the window whose call fails with a service error
}

func (f *windowLLM) Call(ctx context.Context, _, task string, input, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if task != wire.TaskExtractWindow {
		return fmt.Errorf("unexpected task %s", task)
	}
	in := input.(*wire.WindowInput)
	first := in.Episodes[0].Content
	f.mu.Lock()
	defer f.mu.Unlock()
	if first == f.fail {
		return fmt.Errorf("service down")
	}
	f.asked = append(f.asked, first)
	*out.(*wire.WindowOutput) = f.answers[first]
	return nil
}

func (f *windowLLM) TaskVersion(task string) string { return "v1-" + task }

func (f *windowLLM) take() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := f.asked
	f.asked = nil
	return a
}

// TestWindowFactsCiteTheirEpisode: on a hand-built transcript, each fact lands in the output of
// the episode it is listed under, with the entities that episode speaks, names or lists a fact
// about; a fact listed under two episodes lands in both; a fact under a number not in the window
// goes to the episode naming its endpoints; a fact whose sentence repeats an earlier episode of
// the window rather than its own is cited to that one (Quoted).
func TestWindowFactsCiteTheirEpisode(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	at := time.Date(2024, 1, 8, 10, 0, 0, 0, time.UTC)
	lines := [][2]string{
		{"Liam", "Hi Emma, how is the new job?"},
		{"Emma", "It's great. I work at Globex now."},
		{"Emma", "I live in Leeds, close to the office."},
		{"Liam", "Mia moved to Bristol yesterday."},
	}
	var eps []graph.Episode
	for i, l := range lines {
		eps = append(eps, graph.Episode{UUID: graph.EpisodeID("emma", fmt.Sprint(i)), GroupID: "emma", Source: graph.SourceMessage,
			SourceDescription: "chat", Speaker: l[0], Content: l[1], ReferenceTime: at.Add(time.Duration(i) * time.Minute), Seq: int64(i)})
	}
	if _, err := store.UpsertEpisodes(ctx, eps, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	ent := func(name, typ string) wire.EntityMention {
		return wire.EntityMention{Name: name, Type: typ, Attributes: []wire.AttributeValue{}}
	}
	fact := func(s, p, o, text string) wire.ExtractedFact {
		return wire.ExtractedFact{Source: s, Target: o, Predicate: p, Fact: text, Kind: wire.KindState}
	}
	globex, leeds := fact("Emma", "WORKS_AT", "Globex", "Emma works at Globex."), fact("Emma", "LIVES_IN", "Leeds", "Emma lives in Leeds.")
	bristol, knows := fact("Mia", "MOVED_TO", "Bristol", "Mia moved to Bristol."), fact("Liam", "KNOWS", "Emma", "Liam knows Emma.")
	copied, friend := fact("Emma", "WORKS_AT", "Globex", "It's great. I work at Globex now."), fact("Liam", "FRIEND_OF", "Mia", "Liam is a friend of Mia.")
	f := &windowLLM{answers: map[string]wire.WindowOutput{lines[0][1]: {
		Entities: []wire.EntityMention{ent("Liam", "Person"), ent("Emma", "Person"), ent("Globex", "Organization"),
			ent("Leeds", "Place"), ent("Mia", "Person"), ent("Bristol", "Place"), ent("Emma's office", "Entity")},
		Episodes: []wire.EpisodeFacts{
			{N: 1, Facts: []wire.ExtractedFact{}},
			{N: 2, Facts: []wire.ExtractedFact{globex, friend}},
			{N: 3, Facts: []wire.ExtractedFact{leeds, copied}},
			{N: 4, Facts: []wire.ExtractedFact{bristol, friend}},
			{N: 9, Facts: []wire.ExtractedFact{knows}}, // no such episode
		}}}}
	opts := Options{Window: 64, WindowTokens: 1000, WindowGap: time.Hour, Context: 4, ContextTokens: 120}
	env := stages.Env{Store: store, LLM: f, Concurrency: 2, Repairs: stages.NewTally()}
	st, err := Run(ctx, env, opts)
	if err != nil || st.Units != 4 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	if got := f.take(); len(got) != 1 {
		t.Fatalf("windows asked %q, want the one window", got)
	}
	raw, err := store.GroupOutputs(ctx, Stage, "emma")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	names := map[int][]string{}
	quoted := map[int][]Quote{}
	for i, ep := range eps {
		var o Output
		if err := json.Unmarshal(raw[ep.UUID], &o); err != nil {
			t.Fatal(err)
		}
		for _, f := range o.Facts {
			got[i] = append(got[i], f.Fact)
		}
		for _, e := range o.Entities {
			names[i] = append(names[i], e.Name)
		}
		quoted[i] = o.Quoted
	}
	want := map[int][]string{
		0: {"Liam knows Emma."},
		1: {"Emma works at Globex.", "Liam is a friend of Mia."},
		2: {"Emma lives in Leeds.", "It's great. I work at Globex now."},
		3: {"Mia moved to Bristol.", "Liam is a friend of Mia."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("facts by episode %v, want %v", got, want)
	}
	wantNames := map[int][]string{
		0: {"Liam", "Emma", "Emma's office"}, // Emma named, the office placed nowhere: the first asked
		1: {"Liam", "Emma", "Globex", "Mia"},
		2: {"Emma", "Globex", "Leeds"},
		3: {"Liam", "Mia", "Bristol"},
	}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("entities by episode %v, want %v", names, wantNames)
	}
	if q := quoted[2]; len(q) != 1 || q[0] != (Quote{Fact: 1, Back: 1}) {
		t.Errorf("the sentence copied from episode 1 and cited to 2: quoted %+v, want fact 1 back 1", q)
	}
	rep := env.Repairs.Stage(Stage)
	if rep[RepairUncited] != 1 || rep[RepairUnplaced] != 1 || rep[RepairQuotedContext] != 1 {
		t.Errorf("repairs %v", rep)
	}
}

// TestWindowResumeAsksNoAnsweredWindow: a run that fails partway commits the windows answered
// before; the next run asks only the others, and a run after that asks nothing.
func TestWindowResumeAsksNoAnsweredWindow(t *testing.T) {
	ctx := context.Background()
	store := newStore(t)
	eps := chat("g", 60)
	if _, err := store.UpsertEpisodes(ctx, eps, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	wins := Windows(eps, windowOpts)
	f := &windowLLM{answers: map[string]wire.WindowOutput{}, fail: eps[wins[len(wins)/2][0]].Content}
	env := stages.Env{Store: store, LLM: f, Concurrency: 1}
	if _, err := Run(ctx, env, windowOpts); err == nil || !strings.Contains(err.Error(), "service down") {
		t.Fatalf("first run: %v, want the service error", err)
	}
	first := f.take()
	f.fail = ""
	st, err := Run(ctx, env, windowOpts)
	if err != nil {
		t.Fatal(err)
	}
	second := f.take()
	if len(first)+len(second) != len(wins) {
		t.Fatalf("%d + %d windows asked over two runs, want %d", len(first), len(second), len(wins))
	}
	for _, w := range second {
		if slices.Contains(first, w) {
			t.Fatalf("window %q asked again after it was answered", w)
		}
	}
	if st.Skipped != countEpisodes(wins[:len(first)]) {
		t.Errorf("resumed run skipped %d episodes, want those of the %d windows answered", st.Skipped, len(first))
	}
	st, err = Run(ctx, env, windowOpts)
	if err != nil || st.Units != 0 || len(f.take()) != 0 {
		t.Fatalf("third run: %+v, %v", st, err)
	}
}

func countEpisodes(wins [][]int) int {
	n := 0
	for _, w := range wins {
		n += len(w)
	}
	return n
}
