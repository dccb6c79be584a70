package graph

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestIDsAreDeterministicUUIDv5(t *testing.T) {
	ref := time.Date(2026, 3, 2, 9, 0, 0, 0, time.FixedZone("KST", 9*3600))
	tests := []struct {
		name string
		a, b string // the same id computed twice
		c    string // an id from different keys
	}{
		{"episode", EpisodeID("g", "k1"), EpisodeID("g", "k1"), EpisodeID("g", "k2")},
		{"episode across groups", EpisodeID("g1", "k"), EpisodeID("g1", "k"), EpisodeID("g2", "k")},
		{"content key zone-independent", ContentKey("g", ref, "a", "hi"), ContentKey("g", ref.UTC(), "a", "hi"), ContentKey("g", ref, "a", "hi!")},
		{"entity", EntityID("g", "jihoon"), EntityID("g", "jihoon"), EntityID("h", "jihoon")},
		{"fact", FactID("g", "a", "b", "WORKS_AT", "x"), FactID("g", "a", "b", "WORKS_AT", "x"), FactID("g", "b", "a", "WORKS_AT", "x")},
		{"mention", MentionID("e", "n"), MentionID("e", "n"), MentionID("n", "e")},
		{"community member order", CommunityID("g", []string{"b", "a"}), CommunityID("g", []string{"a", "b"}), CommunityID("g", []string{"a"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.a != tt.b {
				t.Errorf("same keys gave %s and %s", tt.a, tt.b)
			}
			if tt.a == tt.c {
				t.Errorf("different keys gave the same id %s", tt.a)
			}
			if u, err := uuid.Parse(tt.a); err == nil && u.Version() != 5 {
				t.Errorf("%s is version %d, want 5", tt.a, u.Version())
			}
		})
	}
}

func TestKnownID(t *testing.T) {
	// A fixed value: changing the namespace or key layout would silently change every id.
	if got, want := EntityID("alice", "kakao"), "e6d19a1c-89fa-5bf2-984a-7c1dade52f38"; got != want {
		t.Errorf("EntityID changed: got %s, want %s", got, want)
	}
}
