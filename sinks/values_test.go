package sinks

import (
	"testing"

	"github.com/tkgraph/backfill/graph"
)

func TestEpisodeContent(t *testing.T) {
	for _, c := range []struct {
		e    graph.Episode
		want string
	}{
		{graph.Episode{Source: graph.SourceMessage, Speaker: "Alice", Content: "I left Kakao."}, "Alice: I left Kakao."},
		{graph.Episode{Source: graph.SourceMessage, Speaker: "Alice", Content: "Alice: I left Kakao."}, "Alice: I left Kakao."},
		{graph.Episode{Source: graph.SourceMessage, Content: "no speaker"}, "no speaker"},
		{graph.Episode{Source: graph.SourceText, Speaker: "Alice", Content: "a text"}, "a text"},
		{graph.Episode{Source: graph.SourceJSON, Content: `{"a":1}`}, `{"a":1}`},
	} {
		if got := EpisodeContent(c.e); got != c.want {
			t.Errorf("EpisodeContent(%+v) = %q, want %q", c.e, got, c.want)
		}
	}
}
