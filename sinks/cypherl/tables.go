package cypherl

import (
	"fmt"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// stream runs read on every group with one batch and writes what is left in the batch at the end.
func (x *exporter) stream(what string, read func(b *batch, group string) error) error {
	b := newBatch(x)
	if err := x.eachGroup(func(g string) error { return read(b, g) }); err != nil {
		return fmt.Errorf("exporting %s: %w", what, err)
	}
	if err := b.flush(); err != nil {
		return fmt.Errorf("exporting %s: %w", what, err)
	}
	return nil
}

func (x *exporter) episodes() error {
	stmt, err := cypher.EpisodeStatement(x.o.Dialect, cypher.Merge)
	if err != nil {
		return err
	}
	return x.stream("episodes", func(b *batch, g string) error {
		edges, err := sinks.EntityEdges(x.ctx, x.src, g)
		if err != nil {
			return err
		}
		return sinks.EachEpisode(x.ctx, x.src, g, func(e graph.Episode) error {
			return b.add(stmt, cypher.EpisodeRow(e, edges[e.UUID]))
		})
	})
}

func (x *exporter) entities() error {
	return x.stream("entities", func(b *batch, g string) error {
		return x.src.EachEntity(x.ctx, g, func(e graph.Entity) error {
			stmt, err := cypher.EntityStatement(x.o.Dialect, cypher.Merge, cypher.EntityLabels(e))
			if err != nil {
				return fmt.Errorf("entity %s: %w", e.UUID, err)
			}
			return b.add(stmt, cypher.EntityRow(e))
		})
	})
}

func (x *exporter) communities() error {
	stmt, err := cypher.CommunityStatement(x.o.Dialect, cypher.Merge)
	if err != nil {
		return err
	}
	return x.stream("communities", func(b *batch, g string) error {
		return x.src.EachCommunity(x.ctx, g, func(c graph.Community) error {
			return b.add(stmt, cypher.CommunityRow(c))
		})
	})
}

func (x *exporter) facts() error {
	stmt, err := cypher.FactStatement(x.o.Dialect, cypher.Merge)
	if err != nil {
		return err
	}
	return x.stream("facts", func(b *batch, g string) error {
		return x.src.EachFact(x.ctx, g, func(f graph.Fact) error { return b.add(stmt, cypher.FactRow(f)) })
	})
}

func (x *exporter) mentions() error {
	stmt, err := cypher.MentionStatement(x.o.Dialect, cypher.Merge)
	if err != nil {
		return err
	}
	return x.stream("mentions", func(b *batch, g string) error {
		return x.src.EachMention(x.ctx, g, func(m graph.Mention) error { return b.add(stmt, cypher.MentionRow(m)) })
	})
}

func (x *exporter) hasMembers() error {
	stmt, err := cypher.HasMemberStatement(x.o.Dialect, cypher.Merge)
	if err != nil {
		return err
	}
	return x.stream("has_member edges", func(b *batch, g string) error {
		return x.src.EachCommunity(x.ctx, g, func(c graph.Community) error {
			for _, r := range cypher.HasMemberRows(c) {
				if err := b.add(stmt, r); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
