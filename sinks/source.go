package sinks

import (
	"context"

	"github.com/tkgraph/backfill/graph"
)

// Source streams the graph to a sink. Each method calls fn once per record, in the order its
// comment states, and stops at the first error fn returns or at ctx cancellation.
type Source interface {
	// Episodes streams episodes ordered by group_id, reference_time, seq.
	Episodes(ctx context.Context, fn func(graph.Episode) error) error
	// Entities streams entities ordered by group_id, uuid.
	Entities(ctx context.Context, fn func(graph.Entity) error) error
	// Facts streams facts ordered by group_id, uuid.
	Facts(ctx context.Context, fn func(graph.Fact) error) error
	// FactVersions streams the fact version log ordered by fact_uuid, seq.
	FactVersions(ctx context.Context, fn func(graph.FactVersion) error) error
	// Mentions streams MENTIONS edges ordered by group_id, uuid.
	Mentions(ctx context.Context, fn func(graph.Mention) error) error
	// Communities streams communities ordered by group_id, uuid.
	Communities(ctx context.Context, fn func(graph.Community) error) error
}
