package snapshotstest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/snapshots"
)

// Source is every group of s as a loader's source, as the pipeline loads a store's groups.
func Source(t testing.TB, s snapshots.Snapshot) *sinks.MemSource {
	t.Helper()
	src := &sinks.MemSource{}
	for g, err := range s.Groups(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		src.EpisodeList = append(src.EpisodeList, g.Episodes...)
		src.EntityList = append(src.EntityList, g.Entities...)
		src.FactList = append(src.FactList, g.Facts...)
		src.FactVersionList = append(src.FactVersionList, g.Versions...)
		src.MentionList = append(src.MentionList, g.Mentions...)
		src.CommunityList = append(src.CommunityList, g.Communities...)
	}
	return src
}

// AsLoaded renders every group of s as JSON the way a graph database holds it, so a store and
// the graph loaded from it compare as equal strings: a message's speaker inside its content
// (sinks.EpisodeContent), no version log, no entity attributes (the loader writes a map
// attribute as JSON text), empty lists as null.
func AsLoaded(t testing.TB, s snapshots.Snapshot) []string {
	t.Helper()
	var out []string
	for g, err := range s.Groups(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Episodes {
			e := &g.Episodes[i]
			e.Content, e.Speaker = sinks.EpisodeContent(*e), ""
		}
		for i := range g.Entities {
			g.Entities[i].Attributes = nil
		}
		g.Versions = nil
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.ReplaceAll(string(b), "[]", "null"))
	}
	return out
}
