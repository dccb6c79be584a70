package sinks

import (
	"context"

	"github.com/tkgraph/backfill/graph"
)

// Source is the read side of every sink: the finished graph, one group at a time.
// *checkpoints.Store satisfies it (stages.GraphSource adds the job's record-time mode); MemSource
// serves tests. Each Each method calls fn once per record of the group, in the order its comment
// states, and stops at the first error fn returns or at ctx cancellation. A sink holds at most
// one group in memory.
type Source interface {
	// Groups lists the group ids, sorted.
	Groups(ctx context.Context) ([]string, error)
	// GroupEpisodes returns a group's episodes ordered by reference_time, seq, uuid.
	GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error)
	// EachEntity streams a group's entities ordered by uuid.
	EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error
	// EachFact streams a group's facts ordered by uuid.
	EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error
	// EachFactVersion streams a group's fact version log ordered by fact_uuid, seq.
	EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error
	// EachMention streams a group's MENTIONS edges ordered by uuid.
	EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error
	// EachCommunity streams a group's communities ordered by uuid.
	EachCommunity(ctx context.Context, group string, fn func(graph.Community) error) error
}

// EachGroup calls fn for every group of src in order, stopping at the first error.
func EachGroup(ctx context.Context, src Source, fn func(group string) error) error {
	groups, err := src.Groups(ctx)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(g); err != nil {
			return err
		}
	}
	return nil
}

// EachEpisode streams a group's episodes (Source.GroupEpisodes) through fn.
func EachEpisode(ctx context.Context, src Source, group string, fn func(graph.Episode) error) error {
	eps, err := src.GroupEpisodes(ctx, group)
	if err != nil {
		return err
	}
	for _, e := range eps {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
