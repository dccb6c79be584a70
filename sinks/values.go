package sinks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
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
