package checkpoints

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// TestLightReaders requires EachFactEdge and EachEntityStamp to list what EachFact and
// EachEntity list, in the same order, with a fact open only when neither invalid_at nor
// expired_at is set.
func TestLightReaders(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	ents := []graph.Entity{{UUID: "b", GroupID: "g", Name: "B", CreatedAt: t0.Add(time.Hour), NameEmbedding: []float32{1, 2}},
		{UUID: "a", GroupID: "g", Name: "A", CreatedAt: t0}}
	fact := func(id string, invalid, expired *time.Time) graph.Fact {
		return graph.Fact{UUID: id, GroupID: "g", SourceUUID: "a", TargetUUID: "b", Name: "KNOWS", Fact: id,
			CreatedAt: t0, ReferenceTime: t0, InvalidAt: invalid, ExpiredAt: expired, Embedding: []float32{3}}
	}
	facts := []graph.Fact{fact("f3", nil, graph.UTC(t0)), fact("f1", nil, nil), fact("f2", graph.UTC(t0), nil)}
	other := graph.Fact{UUID: "f0", GroupID: "h", SourceUUID: "x", TargetUUID: "y", CreatedAt: t0, ReferenceTime: t0}
	if err := s.Write(ctx, func(tx *Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", ents, nil); err != nil {
			return err
		}
		if err := tx.ReplaceFacts(ctx, "h", []graph.Fact{other}, nil); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, "g", facts, nil)
	}); err != nil {
		t.Fatal(err)
	}
	var full, light []string
	if err := s.EachFact(ctx, "g", func(f graph.Fact) error {
		full = append(full, f.SourceUUID+"-"+f.TargetUUID+" open="+strconv.FormatBool(f.InvalidAt == nil && f.ExpiredAt == nil))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.EachFactEdge(ctx, "g", func(e FactEdge) error {
		light = append(light, e.Source+"-"+e.Target+" open="+strconv.FormatBool(e.Open))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a-b open=true", "a-b open=false", "a-b open=false"}; !slices.Equal(light, want) || !slices.Equal(full, light) {
		t.Errorf("edges %v, facts %v; want %v", light, full, want)
	}
	var stamps []string
	if err := s.EachEntityStamp(ctx, "g", func(id string, created time.Time) error {
		stamps = append(stamps, id+" "+created.Format(time.RFC3339))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a 2024-05-01T00:00:00Z", "b 2024-05-01T01:00:00Z"}; !slices.Equal(stamps, want) {
		t.Errorf("stamps %v, want %v", stamps, want)
	}
}
