package checkpoints

import (
	"context"
	"database/sql"
)

// CopyForgotten records in s what the deletions of from forgot (episodes and quarantined rows, by
// hash; the forgotten table), so that rows of the sources a deletion forgot are skipped by an
// ingest into s as they are by one into from: the plan's scratch store (jobs/planner) copies them
// with the job's episodes.
func (s *Store) CopyForgotten(ctx context.Context, from *Store) error {
	type row struct {
		hash     string
		deletion int64
	}
	var rows []row
	err := from.each(ctx, "forgotten", `SELECT hash, deletion FROM forgotten`, nil, func(r *sql.Rows) error {
		var x row
		if err := r.Scan(&x.hash, &x.deletion); err != nil {
			return err
		}
		rows = append(rows, x)
		return nil
	})
	if err != nil || len(rows) == 0 {
		return err
	}
	return s.Write(ctx, func(tx *Tx) error {
		for _, x := range rows {
			if err := tx.exec(ctx, "copying a forgotten hash", `INSERT OR IGNORE INTO forgotten(hash, deletion) VALUES(?, ?)`,
				x.hash, x.deletion); err != nil {
				return err
			}
		}
		return nil
	})
}
