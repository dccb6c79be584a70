package parquet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"
	"github.com/tkgraph/backfill/internal/safefile"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// Row-group and buffer sizes. Tables with embeddings get smaller row groups, since each of their
// rows may carry thousands of floats.
const (
	RowGroupRows          = 50_000
	EmbeddingRowGroupRows = 4_096
	writeBatch            = 256
)

// Export writes the graph of src as Parquet tables into dir (see the package doc).
func Export(ctx context.Context, src sinks.Source, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	steps := []func() error{
		func() error {
			return writeTable(ctx, dir, EpisodesFile, RowGroupRows, func(emit func(EpisodeRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					edges, err := sinks.EntityEdges(ctx, src, g)
					if err != nil {
						return err
					}
					return sinks.EachEpisode(ctx, src, g, func(e graph.Episode) error { return emit(episodeRow(e, edges[e.UUID])) })
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, EntitiesFile, EmbeddingRowGroupRows, func(emit func(EntityRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachEntity(ctx, g, func(e graph.Entity) error {
						r, err := entityRow(e)
						if err != nil {
							return err
						}
						return emit(r)
					})
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, FactsFile, EmbeddingRowGroupRows, func(emit func(FactRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachFact(ctx, g, func(f graph.Fact) error { return emit(factRow(f)) })
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, FactVersionsFile, RowGroupRows, func(emit func(FactVersionRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachFactVersion(ctx, g, func(v graph.FactVersion) error { return emit(factVersionRow(v)) })
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, MentionsFile, RowGroupRows, func(emit func(EdgeRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachMention(ctx, g, func(m graph.Mention) error { return emit(mentionRow(m)) })
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, CommunitiesFile, EmbeddingRowGroupRows, func(emit func(CommunityRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachCommunity(ctx, g, func(c graph.Community) error { return emit(communityRow(c)) })
				})
			})
		},
		func() error {
			return writeTable(ctx, dir, HasMemberFile, RowGroupRows, func(emit func(EdgeRow) error) error {
				return sinks.EachGroup(ctx, src, func(g string) error {
					return src.EachCommunity(ctx, g, func(c graph.Community) error {
						for _, r := range hasMemberRows(c) {
							if err := emit(r); err != nil {
								return err
							}
						}
						return nil
					})
				})
			})
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// writeTable writes the rows that produce emits into dir/name: first into a temporary file
// (internal/safefile), renamed into place once complete. Rows reach the parquet writer in batches of writeBatch and a
// row group is cut every groupRows rows.
func writeTable[R any](ctx context.Context, dir, name string, groupRows int64, produce func(emit func(R) error) error) (err error) {
	path := filepath.Join(dir, name)
	f, err := safefile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := pq.NewGenericWriter[R](bw, pq.Compression(&pq.Snappy), pq.MaxRowsPerRowGroup(groupRows))
	buf := make([]R, 0, writeBatch)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		clear(buf)
		buf = buf[:0]
		return nil
	}
	err = produce(func(r R) error {
		buf = append(buf, r)
		if len(buf) < writeBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = flush()
	}
	if err == nil {
		err = w.Close()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Commit()
}
