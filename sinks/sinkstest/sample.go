// Package sinkstest holds sample graph data shared by the sink tests: small, deterministic, and
// full of the awkward cases (quotes, backslashes, newlines, non-ASCII text, absent times, nested
// attributes, missing embeddings).
package sinkstest

import (
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// T returns the UTC instant of the given date and time.
func T(y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, time.UTC)
}

func ptr(t time.Time) *time.Time { return &t }

func sorted(ids ...string) []string {
	slices.Sort(ids)
	return ids
}

// Sample returns a fresh MemSource with two groups. Its slices are deliberately unsorted.
func Sample() *sinks.MemSource {
	const g1, g2 = "user-1", "user_2"
	ep1 := graph.Episode{UUID: graph.EpisodeID(g1, "m1"), GroupID: g1, Name: "m1", Source: graph.SourceMessage,
		SourceDescription: "chat", Content: "Alice: I moved to \"Paris\" \\ new job;\nstarting Monday.",
		Speaker: "Alice", ReferenceTime: T(2024, 3, 1, 9, 0), Seq: 0, RecordKey: "m1", IngestedAt: T(2026, 1, 2, 3, 4)}
	ep2 := graph.Episode{UUID: graph.EpisodeID(g1, "m2"), GroupID: g1, Name: "m2", Source: graph.SourceMessage,
		SourceDescription: "chat", Content: "Alice: Je n'habite plus à Lyon — 東京 next? 🚀\ttab",
		Speaker: "Alice", ReferenceTime: T(2024, 3, 1, 9, 0), Seq: 1, RecordKey: "m2", IngestedAt: T(2026, 1, 2, 3, 5)}
	ep3 := graph.Episode{UUID: graph.EpisodeID(g2, "r1"), GroupID: g2, Name: "order 7", Source: graph.SourceJSON,
		SourceDescription: "orders", Content: `{"order":7,"item":"lamp"}`, ReferenceTime: T(2023, 12, 31, 23, 59),
		RecordKey: "r1"}

	alice := graph.Entity{UUID: graph.EntityID(g1, "alice"), GroupID: g1, Name: "Alice", Summary: "Alice moved to Paris.",
		Labels: []string{"Person"}, CreatedAt: T(2024, 3, 1, 9, 0), NameEmbedding: []float32{0.5, -0.25, 1},
		Attributes: map[string]any{"age": float64(34), "nick": "Al", "tags": []any{"a", "b"},
			"address": map[string]any{"city": "Paris", "zip": "75001"}, "uuid": "must-not-override", "note": nil}}
	paris := graph.Entity{UUID: graph.EntityID(g1, "paris"), GroupID: g1, Name: "Paris", Summary: "",
		Labels: []string{"Location"}, CreatedAt: T(2024, 3, 1, 9, 0), NameEmbedding: []float32{1e-7, 0, 3.25}}
	lyon := graph.Entity{UUID: graph.EntityID(g1, "lyon"), GroupID: g1, Name: "Lyon", Summary: "A city.",
		Labels: []string{"Location"}, CreatedAt: T(2024, 3, 1, 9, 0)}
	lamp := graph.Entity{UUID: graph.EntityID(g2, "lamp"), GroupID: g2, Name: "lamp", Summary: "An item.",
		CreatedAt: T(2023, 12, 31, 23, 59)}

	livesParis := graph.Fact{UUID: graph.FactID(g1, alice.UUID, paris.UUID, "LIVES_IN", "alice lives in paris"),
		GroupID: g1, SourceUUID: alice.UUID, TargetUUID: paris.UUID, Name: "LIVES_IN", Fact: "Alice lives in Paris.",
		Episodes: []string{ep1.UUID, ep2.UUID}, CreatedAt: T(2024, 3, 1, 9, 0), ValidAt: ptr(T(2024, 3, 1, 0, 0)),
		ReferenceTime: T(2024, 3, 1, 9, 0), Embedding: []float32{0.1, 0.2, 0.3}}
	livesLyon := graph.Fact{UUID: graph.FactID(g1, alice.UUID, lyon.UUID, "LIVES_IN", "alice lives in lyon"),
		GroupID: g1, SourceUUID: alice.UUID, TargetUUID: lyon.UUID, Name: "LIVES_IN", Fact: "Alice lived in Lyon.",
		Episodes: []string{ep2.UUID}, CreatedAt: T(2024, 3, 1, 9, 0), ValidAt: ptr(T(2020, 1, 1, 0, 0)),
		InvalidAt: ptr(T(2024, 3, 1, 0, 0)), ExpiredAt: ptr(T(2024, 3, 1, 9, 0)), ReferenceTime: T(2024, 3, 1, 9, 0)}

	return &sinks.MemSource{
		EpisodeList: []graph.Episode{ep3, ep2, ep1},
		EntityList:  []graph.Entity{lamp, paris, lyon, alice},
		FactList:    []graph.Fact{livesLyon, livesParis},
		FactVersionList: []graph.FactVersion{
			{FactUUID: livesLyon.UUID, GroupID: g1, Seq: 1, RecordTime: T(2024, 3, 1, 9, 0), ValidAt: livesLyon.ValidAt,
				InvalidAt: livesLyon.InvalidAt, ExpiredAt: livesLyon.ExpiredAt, EpisodeUUID: ep1.UUID, Reason: "closed_by_newer"},
			{FactUUID: livesLyon.UUID, GroupID: g1, Seq: 0, RecordTime: T(2024, 3, 1, 9, 0), ValidAt: livesLyon.ValidAt,
				EpisodeUUID: ep2.UUID, Reason: "created"},
			{FactUUID: livesParis.UUID, GroupID: g1, Seq: 0, RecordTime: T(2024, 3, 1, 9, 0), ValidAt: livesParis.ValidAt,
				EpisodeUUID: ep1.UUID, Reason: "created"},
		},
		MentionList: []graph.Mention{
			{UUID: graph.MentionID(ep1.UUID, paris.UUID), GroupID: g1, EpisodeUUID: ep1.UUID, EntityUUID: paris.UUID, CreatedAt: T(2024, 3, 1, 9, 0)},
			{UUID: graph.MentionID(ep1.UUID, alice.UUID), GroupID: g1, EpisodeUUID: ep1.UUID, EntityUUID: alice.UUID, CreatedAt: T(2024, 3, 1, 9, 0)},
			{UUID: graph.MentionID(ep3.UUID, lamp.UUID), GroupID: g2, EpisodeUUID: ep3.UUID, EntityUUID: lamp.UUID, CreatedAt: T(2023, 12, 31, 23, 59)},
		},
		CommunityList: []graph.Community{
			{UUID: graph.CommunityID(g1, []string{alice.UUID, paris.UUID}), GroupID: g1, Name: "Alice & Paris",
				Summary: "People and places.", Members: sorted(alice.UUID, paris.UUID), CreatedAt: T(2024, 3, 2, 0, 0),
				NameEmbedding: []float32{0, 1, 0}},
		},
	}
}
