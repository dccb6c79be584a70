package parquet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tkgraph/backfill/graph"
)

// Table file names of an export directory.
const (
	EpisodesFile     = "episodes.parquet"
	EntitiesFile     = "entities.parquet"
	FactsFile        = "facts.parquet"
	FactVersionsFile = "fact_versions.parquet"
	MentionsFile     = "mentions.parquet"
	CommunitiesFile  = "communities.parquet"
	HasMemberFile    = "has_member.parquet"
)

// readBatch is how many rows Rows decodes at a time.
const readBatch = 256

// Rows streams the rows of one table of an export directory in file order (the order Export
// wrote them: the Source's), decoded into the table's row type. The sequence yields an error,
// then stops, when the file cannot be opened or read; stopping early closes the file.
func Rows[R any](ctx context.Context, dir, name string) iter.Seq2[R, error] {
	return func(yield func(R, error) bool) {
		var zero R
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			yield(zero, fmt.Errorf("reading export table: %w", err))
			return
		}
		defer f.Close()
		r := pq.NewGenericReader[R](f)
		defer r.Close()
		buf := make([]R, readBatch)
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			n, err := r.Read(buf)
			for i := range n {
				if !yield(buf[i], nil) {
					return
				}
			}
			clear(buf[:n])
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(zero, fmt.Errorf("reading %s: %w", path, err))
				return
			}
		}
	}
}

// Domain converts a row back to the domain type. IngestedAt is the row's created_at (the
// Episodic record time Export wrote).
func (r EpisodeRow) Domain() graph.Episode {
	e := graph.Episode{UUID: r.UUID, GroupID: r.GroupID, Name: r.Name, Source: r.Source,
		SourceDescription: r.SourceDescription, Content: r.Content, ReferenceTime: r.ValidAt.UTC(),
		Seq: r.Seq, RecordKey: r.RecordKey, IngestedAt: r.CreatedAt.UTC()}
	if r.Speaker != nil {
		e.Speaker = *r.Speaker
	}
	return e
}

// Domain converts a row back to the domain type: labels without "Entity", attributes decoded.
func (r EntityRow) Domain() (graph.Entity, error) {
	e := graph.Entity{UUID: r.UUID, GroupID: r.GroupID, Name: r.Name, Summary: r.Summary,
		CreatedAt: r.CreatedAt.UTC(), NameEmbedding: r.NameEmbedding}
	for _, l := range r.Labels {
		if l != "Entity" {
			e.Labels = append(e.Labels, l)
		}
	}
	if r.Attributes != nil {
		if err := json.Unmarshal([]byte(*r.Attributes), &e.Attributes); err != nil {
			return e, fmt.Errorf("decoding attributes of entity %s: %w", r.UUID, err)
		}
	}
	return e, nil
}

// Domain converts a row back to the domain type.
func (r FactRow) Domain() graph.Fact {
	return graph.Fact{UUID: r.UUID, GroupID: r.GroupID, SourceUUID: r.SourceNodeUUID, TargetUUID: r.TargetNodeUUID,
		Name: r.Name, Fact: r.Fact, Episodes: slices.Clone(r.Episodes), CreatedAt: r.CreatedAt.UTC(),
		ExpiredAt: utc(r.ExpiredAt), ValidAt: utc(r.ValidAt), InvalidAt: utc(r.InvalidAt),
		ReferenceTime: r.ReferenceTime.UTC(), Embedding: r.FactEmbedding}
}

// Domain converts a row back to the domain type.
func (r FactVersionRow) Domain() graph.FactVersion {
	return graph.FactVersion{FactUUID: r.FactUUID, GroupID: r.GroupID, Seq: int(r.Seq), RecordTime: r.RecordTime.UTC(),
		ValidAt: utc(r.ValidAt), InvalidAt: utc(r.InvalidAt), ExpiredAt: utc(r.ExpiredAt),
		EpisodeUUID: r.EpisodeUUID, Reason: r.Reason}
}

// Mention converts a mentions.parquet row back to the domain type.
func (r EdgeRow) Mention() graph.Mention {
	return graph.Mention{UUID: r.UUID, GroupID: r.GroupID, EpisodeUUID: r.SourceNodeUUID, EntityUUID: r.TargetNodeUUID,
		CreatedAt: r.CreatedAt.UTC()}
}

// Domain converts a row back to the domain type, without members (they are the
// has_member.parquet rows whose source_node_uuid is the community).
func (r CommunityRow) Domain() graph.Community {
	return graph.Community{UUID: r.UUID, GroupID: r.GroupID, Name: r.Name, Summary: r.Summary,
		CreatedAt: r.CreatedAt.UTC(), NameEmbedding: r.NameEmbedding}
}
