package checkpoints

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/cache"
)

// forgetFixture stages two groups: g1 with episodes a (Zed), b (Ann); g2 with c (Zed). Entity
// x is mentioned by a only, y by a and b; fact f1 is supported by a only, f2 by a and b.
func forgetFixture(t *testing.T) *Store {
	t.Helper()
	ctx := context.Background()
	s := open(t)
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	a, b, c := ep("a", "g1", ref, 1), ep("b", "g1", ref.Add(time.Minute), 2), ep("c", "g2", ref, 1)
	a.Speaker, b.Speaker, c.Speaker = "Zed", "Ann", "Zed"
	a.Content = "Zed lives in Quuxville"
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{a, b, c}, ref); err != nil {
		t.Fatal(err)
	}
	err := s.CommitUnit(ctx, "resolve", "g1", "fp", func(tx *Tx) error {
		if err := tx.ReplaceEntities(ctx, "g1", []graph.Entity{{UUID: "x", Name: "Quuxville"}, {UUID: "y", Name: "Zed"}},
			[]graph.Mention{{UUID: "m1", EpisodeUUID: "a", EntityUUID: "x"}, {UUID: "m2", EpisodeUUID: "a", EntityUUID: "y"},
				{UUID: "m3", EpisodeUUID: "b", EntityUUID: "y"}}); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, "g1", []graph.Fact{
			{UUID: "f1", SourceUUID: "y", TargetUUID: "x", Name: "LIVES_IN", Fact: "Zed lives in Quuxville", Episodes: []string{"a"}},
			{UUID: "f2", SourceUUID: "y", TargetUUID: "y", Name: "IS", Fact: "Zed is Zed", Episodes: []string{"a", "b"}},
		}, []graph.FactVersion{{FactUUID: "f1", Seq: 1, EpisodeUUID: "a", Reason: "created"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct{ stage, unit string }{{"extract", "a"}, {"extract", "b"}, {"extract", "c"}, {"temporal", "g1"}, {"load", "g1"}} {
		if err := s.CommitUnit(ctx, u.stage, u.unit, "fp", nil); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestSelectAndImpact(t *testing.T) {
	ctx := context.Background()
	s := forgetFixture(t)
	for _, c := range []struct {
		name string
		sel  Selection
		want []string
	}{
		{"speaker", Selection{Speakers: []string{"Zed"}}, []string{"a", "c"}},
		{"speaker in group", Selection{Speakers: []string{"Zed"}, Groups: []string{"g1"}}, []string{"a"}},
		{"match", Selection{Matches: []string{"Quuxville"}}, []string{"a"}},
		{"key or uuid", Selection{Keys: []string{"b", "c"}}, []string{"b", "c"}},
		{"kinds narrow", Selection{Keys: []string{"b"}, Speakers: []string{"Zed"}}, nil},
	} {
		eps, err := s.SelectEpisodes(ctx, c.sel)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range eps {
			got = append(got, e.UUID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: selected %v, want %v", c.name, got, c.want)
		}
	}
	eps, _ := s.SelectEpisodes(ctx, Selection{Keys: []string{"a"}})
	im, err := s.Impact(ctx, eps)
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Entities) != 1 || im.Entities[0].UUID != "x" || len(im.Facts) != 1 || im.Facts[0].UUID != "f1" {
		t.Errorf("impact of forgetting a: entities %+v, facts %+v; want x only and f1 only (y and f2 have b too)", im.Entities, im.Facts)
	}
}

func TestForgetResetsGroupsAndPurgeSweepsTheCache(t *testing.T) {
	ctx := context.Background()
	s := forgetFixture(t)
	put := func(ctx context.Context, key string) {
		t.Helper()
		if err := s.Put(ctx, key, cache.Entry{Namespace: "extract", Response: []byte(key)}); err != nil {
			t.Fatal(err)
		}
	}
	g1, g2 := ForGroup(ctx, "g1"), ForGroup(ctx, "g2")
	put(g1, "only-a")    // asked for a: not asked again
	put(g1, "still-b")   // asked for b: asked again after the forgetting
	put(g1, "shared")    // asked by both groups
	put(g2, "only-g2")   // another group's
	put(ctx, "untagged") // cached before groups were recorded: not asked again
	if _, _, err := s.Get(g2, "shared"); err != nil {
		t.Fatal(err)
	}

	eps, _ := s.SelectEpisodes(ctx, Selection{Keys: []string{"a"}})
	d, err := s.Forget(ctx, Deletion{Command: "test", Selectors: []Selector{{Kind: SelectEpisode, Hash: HashValue(SelectEpisode, "a")}}}, eps)
	if err != nil {
		t.Fatal(err)
	}
	if d.Episodes != 1 || d.Groups != 1 || d.Entities != 1 || d.Facts != 1 {
		t.Errorf("deletion %+v: want 1 episode of 1 group, 1 entity and 1 fact", d)
	}
	if n, _ := s.CountEpisodes(ctx); n != 2 {
		t.Errorf("%d episodes after forgetting a, want 2", n)
	}
	if c, _ := s.GroupCount(ctx, "g1"); c.Entities+c.Facts+c.Mentions != 0 {
		t.Errorf("g1 keeps its graph %+v until it is computed again", c)
	}
	fps, _ := s.Fingerprints(ctx, "extract")
	if _, ok := fps["b"]; ok || fps["c"] == "" {
		t.Errorf("extract records %v: want b's reset (its group's cache is checked again) and c's kept", fps)
	}
	if _, ok, _ := s.Fingerprint(ctx, "temporal", "g1"); ok {
		t.Error("g1's temporal record survived")
	}
	if _, ok, _ := s.Fingerprint(ctx, "load", "g1"); !ok {
		t.Error("g1's load record is gone: its next load would not know the sink holds it")
	}
	if got, _ := s.ForgottenAmong(ctx, []string{"a", "b"}); !got["a"] || got["b"] {
		t.Errorf("forgotten among a, b = %v, want a only", got)
	}
	if p, _ := s.PendingGroups(ctx); !slices.Equal(p, []string{"g1"}) {
		t.Errorf("pending %v, want g1", p)
	}

	// The run computing g1 again asks "still-b" and "shared" (hits), not "only-a".
	for _, k := range []string{"still-b", "shared"} {
		if _, ok, err := s.Get(g1, k); err != nil || !ok {
			t.Fatalf("get %s: %v %v", k, ok, err)
		}
	}
	p, err := s.Purge(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if p.CacheRows != 2 || !slices.Equal(p.Groups, []string{"g1"}) {
		t.Errorf("purged %+v: want g1 and 2 cache rows (only-a, untagged)", p)
	}
	for k, want := range map[string]bool{"only-a": false, "untagged": false, "still-b": true, "shared": true, "only-g2": true} {
		if _, ok, _ := s.Get(ctx, k); ok != want {
			t.Errorf("cache row %s kept = %v, want %v", k, ok, want)
		}
	}
	if p, _ := s.PendingGroups(ctx); len(p) != 0 {
		t.Errorf("pending after purge: %v", p)
	}
	dels, _ := s.Deletions(ctx)
	if len(dels) != 1 || dels[0].PurgedAt == nil || dels[0].CacheRows != 2 {
		t.Errorf("deletion record %+v: want one, purged, 2 cache rows", dels)
	}
	if n, _ := s.LastPurged(ctx); n != d.Seq {
		t.Errorf("last purged %d, want %d", n, d.Seq)
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("Quuxville")) {
			t.Errorf("%s still holds the forgotten text", f)
		}
	}
}

func TestVanished(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	t1, t2 := ref.Add(time.Hour), ref.Add(2*time.Hour)
	var eps []graph.Episode
	for _, id := range []string{"a", "b", "c"} {
		e := ep(id, "g", ref, 1)
		e.Origin = "in.jsonl"
		eps = append(eps, e)
	}
	other := ep("o", "g", ref, 1)
	other.Origin = "other.jsonl"
	if _, err := s.UpsertEpisodes(ctx, append(eps, other), t1); err != nil {
		t.Fatal(err)
	}
	fresh := ep("d", "g", ref, 1)
	fresh.Origin = "in.jsonl"
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{eps[0], eps[2], fresh}, t2); err != nil {
		t.Fatal(err)
	}
	gone, kept, err := s.Vanished(ctx, "in.jsonl", t2)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) != 1 || gone[0].UUID != "b" || kept != 2 {
		t.Errorf("vanished %+v, kept %d; want b, and a and c kept (d is new)", gone, kept)
	}
	if used, _ := s.StagedAt(ctx, t2); !used {
		t.Error("StagedAt(t2) = false after a staging at t2")
	}
	d, err := s.Forget(ctx, Deletion{Selectors: []Selector{{Kind: SelectVanished, Source: "in.jsonl"}}}, gone)
	if err != nil || d.Episodes != 1 {
		t.Fatalf("forget vanished: %+v, %v", d, err)
	}
	if got, _ := s.ForgottenAmong(ctx, []string{"b"}); got["b"] {
		t.Error("an episode gone from a mirror source is kept out of later runs; if its row comes back it is new input")
	}
}

// TestMigratesVersion8: a store of schema version 8 keeps its episodes, which gain an empty
// origin until a run stages them again, and its cached answers, which carry no group.
func TestMigratesVersion8(t *testing.T) {
	ctx := context.Background()
	path := oldStore(t, "8", `CREATE TABLE episodes (`+episodesColumnsV8+`)`,
		`INSERT INTO episodes(uuid, group_id, reference_time, seq, name, source, source_description, content, speaker, record_key, ingested_at, staged_run)
			VALUES ('a','g',0,1,'a','message','','hi','Zed','a',5,5)`,
		`CREATE TABLE llm_cache (key TEXT PRIMARY KEY, namespace TEXT NOT NULL, response BLOB NOT NULL,
			prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)`,
		`INSERT INTO llm_cache VALUES ('k','extract','{}',1,1)`)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 8 store: %v", err)
	}
	defer s.Close()
	gone, kept, err := s.Vanished(ctx, "in.jsonl", time.UnixMicro(9))
	if err != nil || len(gone) != 0 || kept != 0 {
		t.Errorf("vanished from in.jsonl in a migrated store: %+v, %d, %v; want none (no episode has a source yet)", gone, kept, err)
	}
	eps, err := s.SelectEpisodes(ctx, Selection{Speakers: []string{"Zed"}})
	if err != nil || len(eps) != 1 {
		t.Fatalf("selecting in a migrated store: %+v, %v", eps, err)
	}
	if _, err := s.Forget(ctx, Deletion{Command: "test"}, eps); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Purge(ctx, time.Now()); err != nil || p.CacheRows != 1 {
		t.Errorf("purge in a migrated store: %+v, %v; want the answer of no group deleted", p, err)
	}
}
