package cypherl

import (
	"fmt"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks/memgraph"
)

// stream runs read with a fresh batch and writes what is left in the batch at the end.
func (x *exporter) stream(what string, read func(b *batch) error) error {
	b := &batch{x: x}
	if err := read(b); err != nil {
		return fmt.Errorf("exporting %s: %w", what, err)
	}
	if err := b.flush(); err != nil {
		return fmt.Errorf("exporting %s: %w", what, err)
	}
	return nil
}

func (x *exporter) episodes() error {
	stmt, err := memgraph.EpisodeMerge(x.o.Dialect)
	if err != nil {
		return err
	}
	return x.stream("episodes", func(b *batch) error {
		return x.src.Episodes(x.ctx, func(e graph.Episode) error {
			edges, err := x.edges.Of(x.ctx, e)
			if err != nil {
				return err
			}
			return b.add(stmt, memgraph.EpisodeRow(e, edges))
		})
	})
}

func (x *exporter) entities() error {
	return x.stream("entities", func(b *batch) error {
		return x.src.Entities(x.ctx, func(e graph.Entity) error {
			stmt, err := memgraph.EntityMerge(x.o.Dialect, memgraph.EntityLabels(e))
			if err != nil {
				return fmt.Errorf("entity %s: %w", e.UUID, err)
			}
			return b.add(stmt, memgraph.EntityRow(e))
		})
	})
}

func (x *exporter) communities() error {
	stmt, err := memgraph.CommunityMerge(x.o.Dialect)
	if err != nil {
		return err
	}
	return x.stream("communities", func(b *batch) error {
		return x.src.Communities(x.ctx, func(c graph.Community) error {
			return b.add(stmt, memgraph.CommunityRow(c))
		})
	})
}

func (x *exporter) facts() error {
	stmt, err := memgraph.FactMerge(x.o.Dialect)
	if err != nil {
		return err
	}
	return x.stream("facts", func(b *batch) error {
		return x.src.Facts(x.ctx, func(f graph.Fact) error { return b.add(stmt, memgraph.FactRow(f)) })
	})
}

func (x *exporter) mentions() error {
	stmt, err := memgraph.MentionMerge(x.o.Dialect)
	if err != nil {
		return err
	}
	return x.stream("mentions", func(b *batch) error {
		return x.src.Mentions(x.ctx, func(m graph.Mention) error { return b.add(stmt, memgraph.MentionRow(m)) })
	})
}

func (x *exporter) hasMembers() error {
	stmt, err := memgraph.HasMemberMerge(x.o.Dialect)
	if err != nil {
		return err
	}
	return x.stream("has_member edges", func(b *batch) error {
		return x.src.Communities(x.ctx, func(c graph.Community) error {
			for _, r := range memgraph.HasMemberRows(c) {
				if err := b.add(stmt, r); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
