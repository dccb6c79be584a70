package offline

import (
	"github.com/tkgraph/backfill/llm/wire"
)

// extractWindow answers extract_window: each numbered episode is read as extract_graph reads one
// episode, with the context and the window's earlier episodes as its previous episodes (the
// omitted reference time and source taken from the episode before); the entities are listed
// once, the first spelling and its attributes winning, and the facts under the number of the
// episode they were read from (every episode listed, in order).
func extractWindow(in wire.WindowInput) wire.WindowOutput {
	out := wire.WindowOutput{Entities: []wire.EntityMention{}, Episodes: []wire.EpisodeFacts{}}
	seen := map[string]bool{}
	prev := append([]wire.EpisodeIn{}, in.Previous...)
	var ref, source string
	for _, ep := range in.Episodes {
		if ep.ReferenceTime != "" {
			ref = ep.ReferenceTime
		}
		if ep.Source != "" {
			source = ep.Source
		}
		cur := wire.EpisodeIn{ReferenceTime: ref, Source: source, Speaker: ep.Speaker, Content: ep.Content}
		got := extractGraph(wire.ExtractInput{EntityTypes: in.EntityTypes, EdgeTypes: in.EdgeTypes,
			ExcludedTypes: in.ExcludedTypes, Episode: cur, Previous: prev})
		for _, e := range got.Entities {
			if k := normName(e.Name); !seen[k] {
				seen[k] = true
				out.Entities = append(out.Entities, e)
			}
		}
		out.Episodes = append(out.Episodes, wire.EpisodeFacts{N: ep.N, Facts: got.Facts})
		prev = append(prev, cur)
	}
	return out
}
