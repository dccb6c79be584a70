package checkpoints

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Run is one row of the runs table: a run of the store's job that got as far as opening the
// store, with its report as the runner wrote it (JSON text of report.Report).
type Run struct {
	Seq        int
	Job        string
	Shard      string // "I/N", or "" for an unsharded run
	FinishedAt time.Time
	Outcome    string // ok | failed | interrupted | budget_stopped | pending (jobs/runner)
	Report     string // JSON
}

// RecordRun appends a run to the runs table; Seq is assigned by the store.
func (s *Store) RecordRun(ctx context.Context, r Run) error {
	return s.Write(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO runs(job,shard,finished_at,outcome,report) VALUES(?,?,?,?,?)`,
			r.Job, r.Shard, micros(r.FinishedAt), r.Outcome, r.Report); err != nil {
			return fmt.Errorf("recording run: %w", err)
		}
		return nil
	})
}

// Runs lists the recorded runs, oldest first.
func (s *Store) Runs(ctx context.Context) ([]Run, error) {
	return s.runs(ctx, `SELECT seq,job,shard,finished_at,outcome,report FROM runs ORDER BY seq`, nil)
}

// LastRun returns the last recorded run, of the outcome given unless it is "" (ok false when
// there is none).
func (s *Store) LastRun(ctx context.Context, outcome string) (Run, bool, error) {
	q, args := `SELECT seq,job,shard,finished_at,outcome,report FROM runs ORDER BY seq DESC LIMIT 1`, []any(nil)
	if outcome != "" {
		q, args = `SELECT seq,job,shard,finished_at,outcome,report FROM runs WHERE outcome=? ORDER BY seq DESC LIMIT 1`, []any{outcome}
	}
	runs, err := s.runs(ctx, q, args)
	if err != nil || len(runs) == 0 {
		return Run{}, false, err
	}
	return runs[0], true, nil
}

// runs lists the runs a query selects.
func (s *Store) runs(ctx context.Context, q string, args []any) ([]Run, error) {
	var out []Run
	err := s.each(ctx, "runs", q, args,
		func(r *sql.Rows) error {
			var run Run
			var at int64
			if err := r.Scan(&run.Seq, &run.Job, &run.Shard, &at, &run.Outcome, &run.Report); err != nil {
				return err
			}
			run.FinishedAt = fromMicros(at)
			out = append(out, run)
			return nil
		})
	return out, err
}
