package checkpoints

import (
	"context"
	"database/sql"
	"fmt"
)

// Fingerprints returns the fingerprint of every finished unit of a stage.
func (s *Store) Fingerprints(ctx context.Context, stage string) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT unit, fingerprint FROM units WHERE stage = ?`, stage)
	if err != nil {
		return nil, fmt.Errorf("reading %s records: %w", stage, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var u, f string
		if err := rows.Scan(&u, &f); err != nil {
			return nil, fmt.Errorf("reading %s records: %w", stage, err)
		}
		out[u] = f
	}
	return out, rows.Err()
}

// Fingerprint returns the fingerprint of one finished unit, if any.
func (s *Store) Fingerprint(ctx context.Context, stage, unit string) (string, bool, error) {
	var f string
	err := s.r.QueryRowContext(ctx, `SELECT fingerprint FROM units WHERE stage=? AND unit=?`, stage, unit).Scan(&f)
	if err == sql.ErrNoRows {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s record %s: %w", stage, unit, err)
	}
	return f, true, nil
}

// StageCount is the number of finished units of a stage.
type StageCount struct {
	Stage string
	Units int
}

// StageCounts lists finished units per stage, sorted by stage.
func (s *Store) StageCounts(ctx context.Context) ([]StageCount, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT stage, count(*) FROM units GROUP BY stage ORDER BY stage`)
	if err != nil {
		return nil, fmt.Errorf("reading stage records: %w", err)
	}
	defer rows.Close()
	var out []StageCount
	for rows.Next() {
		var c StageCount
		if err := rows.Scan(&c.Stage, &c.Units); err != nil {
			return nil, fmt.Errorf("reading stage records: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CommitUnit writes a unit's outputs (through fn) and its completion record in one transaction.
func (s *Store) CommitUnit(ctx context.Context, stage, unit, fingerprint string, fn func(*Tx) error) error {
	return s.Write(ctx, func(tx *Tx) error {
		if fn != nil {
			if err := fn(tx); err != nil {
				return fmt.Errorf("writing %s unit %s: %w", stage, unit, err)
			}
		}
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO units(stage,unit,fingerprint) VALUES(?,?,?)
			ON CONFLICT(stage,unit) DO UPDATE SET fingerprint=excluded.fingerprint`, stage, unit, fingerprint)
		if err != nil {
			return fmt.Errorf("recording %s unit %s: %w", stage, unit, err)
		}
		return nil
	})
}

// PutOutput stores a unit's intermediate output.
func (t *Tx) PutOutput(ctx context.Context, stage, unit, group string, body []byte) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO stage_outputs(stage,unit,group_id,body) VALUES(?,?,?,?)
		ON CONFLICT(stage,unit) DO UPDATE SET group_id=excluded.group_id, body=excluded.body`, stage, unit, group, body)
	if err != nil {
		return fmt.Errorf("storing %s output %s: %w", stage, unit, err)
	}
	return nil
}

// Output reads a unit's intermediate output.
func (s *Store) Output(ctx context.Context, stage, unit string) ([]byte, bool, error) {
	var b []byte
	err := s.r.QueryRowContext(ctx, `SELECT body FROM stage_outputs WHERE stage=? AND unit=?`, stage, unit).Scan(&b)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s output %s: %w", stage, unit, err)
	}
	return b, true, nil
}

// GroupOutputs reads the intermediate outputs of a stage for the given units, keyed by unit.
func (s *Store) GroupOutputs(ctx context.Context, stage, group string) (map[string][]byte, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT unit, body FROM stage_outputs WHERE stage=? AND group_id=?`, stage, group)
	if err != nil {
		return nil, fmt.Errorf("reading %s outputs of %s: %w", stage, group, err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var u string
		var b []byte
		if err := rows.Scan(&u, &b); err != nil {
			return nil, fmt.Errorf("reading %s outputs of %s: %w", stage, group, err)
		}
		out[u] = b
	}
	return out, rows.Err()
}

// EpisodeFingerprints returns the fingerprints of a stage's finished units for the episodes of
// one group (for stages whose units are episodes), so a stage holds one group's records at a time.
func (s *Store) EpisodeFingerprints(ctx context.Context, stage, group string) (map[string]string, error) {
	// CROSS JOIN keeps episodes (by their group index) as the outer loop, so the query reads one
	// group's rows instead of every record of the stage.
	rows, err := s.r.QueryContext(ctx, `SELECT u.unit, u.fingerprint FROM episodes e
		CROSS JOIN units u ON u.stage = ? AND u.unit = e.uuid WHERE e.group_id = ?`, stage, group)
	if err != nil {
		return nil, fmt.Errorf("reading %s records of %s: %w", stage, group, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var u, f string
		if err := rows.Scan(&u, &f); err != nil {
			return nil, fmt.Errorf("reading %s records of %s: %w", stage, group, err)
		}
		out[u] = f
	}
	return out, rows.Err()
}
