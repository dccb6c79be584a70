package loaders

import (
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/tkgraph/backfill/graph"
)

// episodeRow is the episode Parquet schema written by `backfill import`. Its column names are the
// default Mapping, so Read reads the file back unchanged; uuid and seq are informative (Read
// recomputes both).
type episodeRow struct {
	UUID              string    `parquet:"uuid"`
	GroupID           string    `parquet:"group_id,dict"`
	ReferenceTime     time.Time `parquet:"reference_time,timestamp(nanosecond:utc)"`
	Seq               int64     `parquet:"seq"`
	Source            string    `parquet:"source,dict"`
	SourceDescription string    `parquet:"source_description,dict"`
	Speaker           string    `parquet:"speaker,dict"`
	Name              string    `parquet:"name"`
	RecordKey         string    `parquet:"record_key"`
	Content           string    `parquet:"content"`
}

// Row group bounds of the episode writer: a row group is cut at whichever comes first.
const (
	episodeGroupRows  = 10_000
	episodeGroupBytes = 64 << 20
)

// EpisodeWriter streams episodes into a Parquet file, cutting a row group every 10,000 rows or
// 64 MiB of content, so memory stays bounded whatever the number of episodes.
type EpisodeWriter struct {
	w     *parquet.GenericWriter[episodeRow]
	buf   []episodeRow
	bytes int
	rows  int64
}

// NewEpisodeWriter starts an episode Parquet file on w. Close must be called to finish it.
func NewEpisodeWriter(w io.Writer) *EpisodeWriter {
	return &EpisodeWriter{
		w: parquet.NewGenericWriter[episodeRow](w, parquet.Compression(&zstd.Codec{}),
			parquet.CreatedBy("backfill", "", "")),
		buf: make([]episodeRow, 0, 256),
	}
}

// Write adds one episode.
func (e *EpisodeWriter) Write(ep graph.Episode) error {
	e.buf = append(e.buf, episodeRow{
		UUID: ep.UUID, GroupID: ep.GroupID, ReferenceTime: ep.ReferenceTime.UTC(), Seq: ep.Seq,
		Source: ep.Source, SourceDescription: ep.SourceDescription, Speaker: ep.Speaker,
		Name: ep.Name, RecordKey: ep.RecordKey, Content: ep.Content,
	})
	e.bytes += len(ep.Content)
	e.rows++
	if len(e.buf) == cap(e.buf) {
		if err := e.drain(); err != nil {
			return err
		}
	}
	if e.rows%episodeGroupRows == 0 || e.bytes >= episodeGroupBytes {
		if err := e.drain(); err != nil {
			return err
		}
		if err := e.w.Flush(); err != nil {
			return fmt.Errorf("writing episode row group: %w", err)
		}
		e.bytes = 0
	}
	return nil
}

// drain hands the buffered rows to the Parquet writer.
func (e *EpisodeWriter) drain() error {
	if _, err := e.w.Write(e.buf); err != nil {
		return fmt.Errorf("writing episodes: %w", err)
	}
	e.buf = e.buf[:0]
	return nil
}

// Close writes the remaining rows and the footer. It does not close the underlying writer.
func (e *EpisodeWriter) Close() error {
	if err := e.drain(); err != nil {
		return err
	}
	if err := e.w.Close(); err != nil {
		return fmt.Errorf("closing episode parquet: %w", err)
	}
	return nil
}

// WriteEpisodesParquet writes every episode of eps to w as one episode Parquet file.
func WriteEpisodesParquet(w io.Writer, eps iter.Seq[graph.Episode]) error {
	ew := NewEpisodeWriter(w)
	for ep := range eps {
		if err := ew.Write(ep); err != nil {
			return err
		}
	}
	return ew.Close()
}
