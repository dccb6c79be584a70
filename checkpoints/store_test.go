package checkpoints

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ep(id, group string, ref time.Time, seq int64) graph.Episode {
	return graph.Episode{UUID: id, GroupID: group, ReferenceTime: ref, Seq: seq, Name: id, Source: "message", Content: "hi " + id}
}

func TestUpsertKeepsFirstRecordTime(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	if st, err := s.UpsertEpisodes(ctx, []graph.Episode{ep("b", "g", ref, 2), ep("a", "g", ref, 1)}, t0); err != nil || st.Added != 2 {
		t.Fatalf("first upsert: %+v, %v", st, err)
	}
	changed := ep("a", "g", ref, 1)
	changed.Content = "edited"
	if st, err := s.UpsertEpisodes(ctx, []graph.Episode{changed}, t0.Add(time.Hour)); err != nil || st.Added != 0 || len(st.Replaced) != 0 {
		t.Fatalf("second upsert: %+v, %v", st, err)
	}
	eps, err := s.GroupEpisodes(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 2 || eps[0].UUID != "a" || eps[1].UUID != "b" {
		t.Fatalf("order = %+v", eps)
	}
	if !eps[0].IngestedAt.Equal(t0) || eps[0].Content != "edited" {
		t.Errorf("upsert kept %v %q, want first record time and new content", eps[0].IngestedAt, eps[0].Content)
	}
}

func TestCommitUnitIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	boom := errors.New("boom")
	err := s.CommitUnit(ctx, "resolve", "g", "fp1", func(tx *Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", []graph.Entity{{UUID: "e1", GroupID: "g", Name: "A"}}, nil); err != nil {
			return err
		}
		if err := tx.PutOutput(ctx, "resolve", "g", "g", []byte("x")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	c, _ := s.Count(ctx)
	fps, _ := s.Fingerprints(ctx, "resolve")
	if _, ok, _ := s.Output(ctx, "resolve", "g"); ok || c.Entities != 0 || len(fps) != 0 {
		t.Fatalf("a failed unit left output=%v entities=%d records=%v", ok, c.Entities, fps)
	}
	if err := s.CommitUnit(ctx, "resolve", "g", "fp2", func(tx *Tx) error {
		return tx.ReplaceEntities(ctx, "g", []graph.Entity{{UUID: "e1", GroupID: "g", Name: "A", Labels: []string{"Person"}}}, nil)
	}); err != nil {
		t.Fatal(err)
	}
	fps, _ = s.Fingerprints(ctx, "resolve")
	c, _ = s.Count(ctx)
	if fps["g"] != "fp2" || c.Entities != 1 {
		t.Fatalf("records=%v entities=%d", fps, c.Entities)
	}
}

func TestFactsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	va := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	f := graph.Fact{UUID: "f", GroupID: "g", SourceUUID: "a", TargetUUID: "b", Name: "WORKS_AT", Fact: "A works at B",
		Episodes: []string{"e1", "e2"}, CreatedAt: va, ValidAt: &va, ReferenceTime: va, Embedding: []float32{0.5, -1}}
	v := graph.FactVersion{FactUUID: "f", GroupID: "g", RecordTime: va, ValidAt: &va, EpisodeUUID: "e1", Reason: "created"}
	if err := s.Write(ctx, func(tx *Tx) error { return tx.ReplaceFacts(ctx, "g", []graph.Fact{f}, []graph.FactVersion{v}) }); err != nil {
		t.Fatal(err)
	}
	var got []graph.Fact
	if err := s.EachFact(ctx, "", func(x graph.Fact) error { got = append(got, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].InvalidAt != nil || !got[0].ValidAt.Equal(va) || len(got[0].Episodes) != 2 ||
		got[0].Embedding[1] != -1 || got[0].ValidAt.Location() != time.UTC {
		t.Fatalf("round trip = %+v", got)
	}
}
