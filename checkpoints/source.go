package checkpoints

import (
	"context"

	"github.com/tkgraph/backfill/graph"
)

// The methods below let the store serve as the read side of every sink: the whole graph, group
// after group, in a stable order.

// Entities streams every entity.
func (s *Store) Entities(ctx context.Context, fn func(graph.Entity) error) error {
	return s.EachEntity(ctx, "", fn)
}

// Facts streams every fact.
func (s *Store) Facts(ctx context.Context, fn func(graph.Fact) error) error {
	return s.EachFact(ctx, "", fn)
}

// FactVersions streams the whole fact version log.
func (s *Store) FactVersions(ctx context.Context, fn func(graph.FactVersion) error) error {
	return s.EachFactVersion(ctx, "", fn)
}

// Mentions streams every mention.
func (s *Store) Mentions(ctx context.Context, fn func(graph.Mention) error) error {
	return s.EachMention(ctx, "", fn)
}

// Communities streams every community.
func (s *Store) Communities(ctx context.Context, fn func(graph.Community) error) error {
	return s.EachCommunity(ctx, "", fn)
}
