package checkpoints

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Purged is what Purge completed.
// Its JSON form (in run reports, which the store keeps) counts the groups instead of naming
// them: a group id may be what was forgotten.
type Purged struct {
	Groups        []string `json:"-"`              // the groups whose forgetting completed
	Gone          []string `json:"-"`              // of them, those left without episodes
	GroupsDone    int      `json:"groups"`         // len(Groups)
	GroupsEmptied int      `json:"groups_emptied"` // len(Gone)
	CacheRows     int      `json:"cache_rows"`     // cached answers deleted
	BatchRequests int      `json:"batch_requests"` // provider batch request rows deleted with them
}

// Purge completes the forgetting of the pending groups (Forget) once a run has computed each of
// them again: the cached answers they asked before and did not ask again lose the group, and
// an answer no group asks any more is deleted with its provider batch request rows; the run
// reports keep no id of a group left without episodes; the open deletions are marked done.
// Call it only after every stage ran to completion, so every request a pending group still
// makes has been asked. It does nothing when no group is pending. The deleted text may remain
// in free pages and the write-ahead log until Compact.
func (s *Store) Purge(ctx context.Context, now time.Time) (Purged, error) {
	var p Purged
	groups, err := s.PendingGroups(ctx)
	if err != nil || len(groups) == 0 {
		return p, err
	}
	p.Groups = groups
	err = s.Write(ctx, func(tx *Tx) error {
		steps := []struct{ what, q string }{
			{"listing unused cache rows", `CREATE TEMP TABLE IF NOT EXISTS forget_swept (key TEXT PRIMARY KEY)`},
			{"listing unused cache rows", `INSERT OR IGNORE INTO temp.forget_swept SELECT key FROM llm_cache_groups
				WHERE live = 0 AND group_id IN (SELECT group_id FROM forget_pending)`},
			{"removing groups from cache rows", `DELETE FROM llm_cache_groups WHERE live = 0 AND group_id IN (SELECT group_id FROM forget_pending)`},
			{"listing unused cache rows", `DELETE FROM temp.forget_swept WHERE EXISTS (SELECT 1 FROM llm_cache_groups g WHERE g.key = forget_swept.key)`},
		}
		for _, st := range steps {
			if err := tx.exec(ctx, st.what, st.q); err != nil {
				return err
			}
		}
		n, err := tx.deleted(ctx, "deleting unused cache rows", `DELETE FROM llm_cache WHERE key IN (SELECT key FROM temp.forget_swept)`)
		if err != nil {
			return err
		}
		p.CacheRows = n
		if p.BatchRequests, err = tx.deleted(ctx, "deleting batch requests of unused cache rows", `DELETE FROM llm_batch_requests
			WHERE key IN (SELECT key FROM temp.forget_swept)
			OR EXISTS (SELECT 1 FROM json_each(llm_batch_requests.keys) j WHERE j.value IN (SELECT key FROM temp.forget_swept))`); err != nil {
			return err
		}
		if err := tx.exec(ctx, "dropping the list of unused cache rows", `DROP TABLE temp.forget_swept`); err != nil {
			return err
		}
		for _, g := range groups {
			var has bool
			if err := tx.tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM episodes WHERE group_id = ?)`, g).Scan(&has); err != nil {
				return fmt.Errorf("reading group %s: %w", g, err)
			}
			if !has {
				p.Gone = append(p.Gone, g)
			}
		}
		p.GroupsDone, p.GroupsEmptied = len(p.Groups), len(p.Gone)
		if err := scrubRunReports(ctx, tx, p.Gone); err != nil {
			return err
		}
		if err := tx.exec(ctx, "recording the deletions done", `UPDATE deletions SET cache_rows = cache_rows + ?
			WHERE seq = (SELECT max(seq) FROM deletions WHERE purged_at IS NULL)`, p.CacheRows); err != nil {
			return err
		}
		if err := tx.exec(ctx, "recording the deletions done", `UPDATE deletions SET purged_at = ? WHERE purged_at IS NULL`, micros(now)); err != nil {
			return err
		}
		return tx.exec(ctx, "clearing pending deletions", `DELETE FROM forget_pending`)
	})
	return p, err
}

// deleted runs a DELETE and returns the number of rows it removed.
func (t *Tx) deleted(ctx context.Context, what, q string, args ...any) (int, error) {
	res, err := t.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return int(n), nil
}

// runReportGroupMaps are the keys of a run report (report.Report) whose maps are keyed by group id.
var runReportGroupMaps = []string{"mapped_groups", "communities_by_group"}

// scrubRunReports removes the groups from the per-group maps of the recorded run reports.
func scrubRunReports(ctx context.Context, tx *Tx, groups []string) error {
	if len(groups) == 0 {
		return nil
	}
	type row struct {
		seq    int
		report string
	}
	var rows []row
	if err := tx.each(ctx, "run reports", `SELECT seq, report FROM runs`, nil, func(rs *sql.Rows) error {
		var r row
		err := rs.Scan(&r.seq, &r.report)
		rows = append(rows, r)
		return err
	}); err != nil {
		return err
	}
	for _, r := range rows {
		var rep map[string]json.RawMessage
		if json.Unmarshal([]byte(r.report), &rep) != nil {
			continue // not a report this build wrote: left as it is
		}
		changed := false
		for _, k := range runReportGroupMaps {
			var m map[string]json.RawMessage
			if rep[k] == nil || json.Unmarshal(rep[k], &m) != nil {
				continue
			}
			for _, g := range groups {
				if _, ok := m[g]; ok {
					delete(m, g)
					changed = true
				}
			}
			rep[k], _ = json.Marshal(m)
		}
		if !changed {
			continue
		}
		b, err := json.Marshal(rep)
		if err != nil {
			return fmt.Errorf("rewriting run report %d: %w", r.seq, err)
		}
		if err := tx.exec(ctx, "rewriting a run report", `UPDATE runs SET report = ? WHERE seq = ?`, string(b), r.seq); err != nil {
			return err
		}
	}
	return nil
}

// Compact rewrites the store so that nothing deleted survives in its files: it copies the
// write-ahead log into the database and truncates it, rebuilds the database without free
// pages (VACUUM, which needs free disk space about the store's size), and truncates the log
// again. Forgetting calls it after Purge.
func (s *Store) Compact(ctx context.Context) error {
	if s.readOnly {
		return s.errReadOnly()
	}
	if err := s.walCheckpoint(ctx); err != nil {
		return describe(s.path, fmt.Errorf("compacting the store: %w", err))
	}
	if _, err := s.w.ExecContext(ctx, `VACUUM`); err != nil {
		return describe(s.path, fmt.Errorf("compacting the store: vacuuming: %w", err))
	}
	if err := s.walCheckpoint(ctx); err != nil {
		return describe(s.path, fmt.Errorf("compacting the store: %w", err))
	}
	return nil
}

// walCheckpoint runs a truncating checkpoint and fails when a reader kept part of the log.
func (s *Store) walCheckpoint(ctx context.Context) error {
	var busy, logFrames, done int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("checkpointing the write-ahead log: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpointing the write-ahead log: a reader held it (%d of %d frames copied)", done, logFrames)
	}
	return nil
}

// Vanished returns the episodes whose source is origin that the staging at stagedAt (the
// ingested-at time given to UpsertEpisodes) did not stage again, in group order, and how many
// episodes of origin staged earlier it did stage again. It reads every episode (no index
// serves it: a run that mirrors has just read every row of its sources).
func (s *Store) Vanished(ctx context.Context, origin string, stagedAt time.Time) (gone []EpisodeRef, kept int, err error) {
	at := micros(stagedAt)
	gone, err = s.episodeRefs(ctx, `origin = ? AND staged_run <> ?`, origin, at)
	if err != nil {
		return nil, 0, err
	}
	kept, err = s.count(ctx, `SELECT count(*) FROM episodes WHERE origin = ? AND staged_run = ? AND ingested_at <> ?`, origin, at, at)
	return gone, kept, err
}

// StagedAt reports whether any episode was last staged at t (UpsertEpisodes' ingestedAt): a
// staging that marks its episodes with a time already on record cannot tell which rows of a
// source vanished.
func (s *Store) StagedAt(ctx context.Context, t time.Time) (bool, error) {
	n, err := s.count(ctx, `SELECT count(*) FROM (SELECT 1 FROM episodes WHERE staged_run = ? LIMIT 1)`, micros(t))
	return n > 0, err
}
