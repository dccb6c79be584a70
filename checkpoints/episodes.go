package checkpoints

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// Staged is what UpsertEpisodes did with a batch.
type Staged struct {
	Added int // episodes new to the store
	// Replaced are the episodes of the batch that replaced, with other content (body, time,
	// speaker, name, source or description), an episode with the same uuid (the same record key)
	// staged earlier in the same run: an input that repeats a record key.
	Replaced []graph.Episode
}

// Kinds of change a staging made, kept in episodes.last_change for the RETURNING clause.
const (
	changeNone     = 0 // new, or the same content as an earlier run staged
	changeUpdated  = 1 // other content than an earlier run staged
	changeInRun    = 2 // other content than an earlier row of this run
	changeRepeated = 3 // the same content as an earlier row of this run
)

// upsertEpisode stages one episode and returns its record time and the kind of change.
var upsertEpisode = fmt.Sprintf(`INSERT INTO episodes
	(uuid, group_id, reference_time, seq, name, source, source_description, content, speaker, record_key, ingested_at, staged_run, record, origin, last_change)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,%[1]d)
	ON CONFLICT(uuid) DO UPDATE SET group_id=excluded.group_id, reference_time=excluded.reference_time,
	seq=excluded.seq, name=excluded.name, source=excluded.source,
	source_description=excluded.source_description, content=excluded.content,
	speaker=excluded.speaker, record_key=excluded.record_key, record=excluded.record, origin=excluded.origin,
	last_change = CASE
		WHEN episodes.content IS excluded.content AND episodes.reference_time IS excluded.reference_time
			AND episodes.speaker IS excluded.speaker AND episodes.name IS excluded.name
			AND episodes.source IS excluded.source AND episodes.source_description IS excluded.source_description
			AND episodes.record IS excluded.record
		THEN CASE WHEN episodes.staged_run = excluded.staged_run THEN %[4]d ELSE %[1]d END
		WHEN episodes.staged_run = excluded.staged_run THEN %[3]d
		ELSE %[2]d END,
	staged_run=excluded.staged_run
	RETURNING ingested_at, last_change`, changeNone, changeUpdated, changeInRun, changeRepeated)

// UpsertEpisodes stages a batch of episodes in one transaction. A new episode gets ingestedAt as
// its record time; an existing one keeps its first record time and takes the new content (a
// record key names a record: its last row wins). ingestedAt also names the run: an episode
// staged twice with the same ingestedAt and different content is reported in Staged.Replaced.
func (s *Store) UpsertEpisodes(ctx context.Context, eps []graph.Episode, ingestedAt time.Time) (Staged, error) {
	var st Staged
	err := s.Write(ctx, func(tx *Tx) error {
		stmt, err := tx.tx.PrepareContext(ctx, upsertEpisode)
		if err != nil {
			return fmt.Errorf("staging episodes: %w", err)
		}
		defer stmt.Close()
		at := micros(ingestedAt)
		for _, e := range eps {
			rec, err := encodeRecord(e.Record)
			if err != nil {
				return fmt.Errorf("staging episode %s: %w", e.UUID, err)
			}
			var got, change int64
			err = stmt.QueryRowContext(ctx, e.UUID, e.GroupID, micros(e.ReferenceTime), e.Seq, e.Name,
				e.Source, e.SourceDescription, e.Content, e.Speaker, e.RecordKey, at, at, rec, e.Origin).Scan(&got, &change)
			if err != nil {
				return fmt.Errorf("staging episode %s: %w", e.UUID, err)
			}
			switch {
			case change == changeInRun:
				st.Replaced = append(st.Replaced, e)
			case got == at && change == changeNone:
				st.Added++
			}
		}
		return nil
	})
	return st, err
}

// Quarantined is a rejected input row.
type Quarantined struct {
	File   string
	Row    int64
	Field  string
	Reason string
	Raw    string
}

// AddQuarantine records rejected rows; a row already recorded is replaced.
func (s *Store) AddQuarantine(ctx context.Context, rows []Quarantined) error {
	return s.Write(ctx, func(tx *Tx) error {
		for _, q := range rows {
			if _, err := tx.tx.ExecContext(ctx, `INSERT OR REPLACE INTO quarantine(file,row,field,reason,raw) VALUES(?,?,?,?,?)`,
				q.File, q.Row, q.Field, q.Reason, q.Raw); err != nil {
				return fmt.Errorf("quarantining %s row %d: %w", q.File, q.Row, err)
			}
		}
		return nil
	})
}

// ClearQuarantine forgets the rejected rows of earlier runs: a run's quarantine is the rows
// that run rejected.
func (s *Store) ClearQuarantine(ctx context.Context) error {
	return s.Write(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM quarantine`); err != nil {
			return fmt.Errorf("clearing the quarantine: %w", err)
		}
		return nil
	})
}

// QuarantineCount is the number of rejected rows on record.
func (s *Store) QuarantineCount(ctx context.Context) (int, error) {
	return s.count(ctx, `SELECT count(*) FROM quarantine`)
}

// CountEpisodes is the number of staged episodes.
func (s *Store) CountEpisodes(ctx context.Context) (int, error) {
	return s.count(ctx, `SELECT count(*) FROM episodes`)
}

func (s *Store) count(ctx context.Context, q string, args ...any) (int, error) {
	var n int
	if err := s.reader().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("counting: %w", err)
	}
	return n, nil
}

// Groups lists the group ids of staged episodes, sorted.
func (s *Store) Groups(ctx context.Context) ([]string, error) {
	rows, err := s.reader().QueryContext(ctx, `SELECT DISTINCT group_id FROM episodes ORDER BY group_id`)
	if err != nil {
		return nil, fmt.Errorf("listing groups: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("listing groups: %w", err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// GroupSizes counts the staged episodes of each group.
func (s *Store) GroupSizes(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	err := s.each(ctx, "group sizes", `SELECT group_id, count(*) FROM episodes GROUP BY group_id`, nil, func(rows *sql.Rows) error {
		var g string
		var n int
		if err := rows.Scan(&g, &n); err != nil {
			return err
		}
		out[g] = n
		return nil
	})
	return out, err
}

const episodeCols = `uuid, group_id, reference_time, seq, name, source, source_description, content, speaker, record_key, ingested_at, record`

func scanEpisode(rows *sql.Rows) (graph.Episode, error) {
	var e graph.Episode
	var ref, ing int64
	var rec string
	err := rows.Scan(&e.UUID, &e.GroupID, &ref, &e.Seq, &e.Name, &e.Source, &e.SourceDescription,
		&e.Content, &e.Speaker, &e.RecordKey, &ing, &rec)
	e.ReferenceTime, e.IngestedAt = fromMicros(ref), fromMicros(ing)
	if err == nil && rec != "" {
		e.Record = &graph.Record{}
		if err = json.Unmarshal([]byte(rec), e.Record); err != nil {
			err = fmt.Errorf("decoding the record of episode %s: %w", e.UUID, err)
		}
	}
	return e, err
}

// encodeRecord is the record column of an episode: its Record as JSON, or "" when it has none.
func encodeRecord(r *graph.Record) (string, error) {
	if r == nil {
		return "", nil
	}
	b, err := json.Marshal(r)
	return string(b), err
}

// GroupEpisodes returns a group's episodes in order (reference time, source sequence, uuid).
func (s *Store) GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error) {
	var out []graph.Episode
	err := s.eachEpisode(ctx, `WHERE group_id = ?`, []any{group}, func(e graph.Episode) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// Episodes streams every episode ordered by group, reference time and source sequence. fn must
// not write to the store.
func (s *Store) Episodes(ctx context.Context, fn func(graph.Episode) error) error {
	return s.eachEpisode(ctx, "", nil, fn)
}

func (s *Store) eachEpisode(ctx context.Context, where string, args []any, fn func(graph.Episode) error) error {
	rows, err := s.reader().QueryContext(ctx, `SELECT `+episodeCols+` FROM episodes `+where+
		` ORDER BY group_id, reference_time, seq, uuid`, args...)
	if err != nil {
		return fmt.Errorf("reading episodes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEpisode(rows)
		if err != nil {
			return fmt.Errorf("reading episodes: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}
