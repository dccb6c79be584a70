package checkpoints

import (
	"context"
	"fmt"
	"testing"
)

// owned lists a group's record as "kind uuid hash extra" lines.
func owned(t *testing.T, s *Store, target, group string) []string {
	t.Helper()
	var out []string
	if err := s.EachOwned(context.Background(), target, group, func(o Owned) error {
		out = append(out, fmt.Sprintf("%s %s %q %q", o.Kind, o.UUID, o.Hash, o.Extra))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOwnedRecord: a claim adds the elements not recorded with an empty hash and leaves the
// recorded ones; SetOwned replaces one group of one target and nothing else; no elements drop
// the group's record.
func TestOwnedRecord(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	const a, b = "neo4j bolt://x db", "neo4j bolt://y db"
	if err := s.SetOwned(ctx, a, "g", []Owned{{Kind: "Entity", UUID: "e1", Hash: "h1", Extra: `{"labels":["Person"]}`},
		{Kind: "Episodic", UUID: "p1", Hash: "h2"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOwned(ctx, b, "g", []Owned{{Kind: "Entity", UUID: "e1", Hash: "other"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOwned(ctx, a, "h", []Owned{{Kind: "Entity", UUID: "e9", Hash: "h9"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimOwned(ctx, a, []Owned{{Group: "g", Kind: "Entity", UUID: "e1"}, {Group: "g", Kind: "MENTIONS", UUID: "m1"}}); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(owned(t, s, a, "g"))
	want := `[Entity e1 "h1" "{\"labels\":[\"Person\"]}" Episodic p1 "h2" "" MENTIONS m1 "" ""]`
	if got != want {
		t.Errorf("after the claim:\n got %s\nwant %s", got, want)
	}
	if err := s.SetOwned(ctx, a, "g", []Owned{{Kind: "MENTIONS", UUID: "m1", Hash: "h3"}}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(owned(t, s, a, "g")); got != `[MENTIONS m1 "h3" ""]` {
		t.Errorf("after SetOwned: %s", got)
	}
	if got := fmt.Sprint(owned(t, s, b, "g"), owned(t, s, a, "h")); got != `[Entity e1 "other" ""] [Entity e9 "h9" ""]` {
		t.Errorf("other target or group changed: %s", got)
	}
	if err := s.SetOwned(ctx, a, "g", nil); err != nil {
		t.Fatal(err)
	}
	if got := owned(t, s, a, "g"); len(got) != 0 {
		t.Errorf("after dropping: %v", got)
	}
}

// TestDropUnits deletes exactly the named units of one stage.
func TestDropUnits(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	for _, u := range []string{"g1", "g2", "g3"} {
		if err := s.CommitUnit(ctx, "load", u, "fp", nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CommitUnit(ctx, "community", "g1", "fp", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DropUnits(ctx, "load", []string{"g1", "g3", "gone"}); err != nil {
		t.Fatal(err)
	}
	load, _ := s.Fingerprints(ctx, "load")
	comm, _ := s.Fingerprints(ctx, "community")
	if fmt.Sprint(load, " ", comm) != "map[g2:fp] map[g1:fp]" {
		t.Errorf("load %v, community %v", load, comm)
	}
}
