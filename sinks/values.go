package sinks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// CanonicalJSON encodes v as compact JSON with map keys sorted and no HTML escaping, so the same
// value always gives the same bytes.
func CanonicalJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding JSON: %w", err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// EpisodeCreatedAt is the record time an episode is exported with (Episodic.created_at): the time
// of its first ingest, or its reference time when the store has not set one.
func EpisodeCreatedAt(e graph.Episode) time.Time {
	if e.IngestedAt.IsZero() {
		return e.ReferenceTime.UTC()
	}
	return e.IngestedAt.UTC()
}

// EpisodeContent is the content a graph database stores for an episode (Episodic.content), as
// graphiti-core stores its own message episodes: "speaker: text" for a message with a speaker,
// so the context Graphiti builds from previous episodes shows who spoke; the content as is
// otherwise (also when the text already starts with "speaker:"). The store and the Parquet
// export keep the text and the speaker apart.
func EpisodeContent(e graph.Episode) string {
	if e.Source == graph.SourceMessage && e.Speaker != "" && !strings.HasPrefix(e.Content, e.Speaker+":") {
		return e.Speaker + ": " + e.Content
	}
	return e.Content
}

// EntityLabels are the custom labels of e besides "Entity": sorted, de-duplicated, no empty ones.
func EntityLabels(e graph.Entity) []string {
	out := make([]string, 0, len(e.Labels))
	for _, l := range e.Labels {
		if l != "" && l != "Entity" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
