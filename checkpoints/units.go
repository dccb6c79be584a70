package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// FailedPrefix starts the stored fingerprint that Fingerprints, Fingerprint and
// EpisodeFingerprints report for a failed unit. A computed fingerprint never has it, so a failed
// unit never matches its inputs and runs again, and a stage downstream that hashes it sees a
// change once the unit succeeds.
const FailedPrefix = "failed:"

// storedFingerprint is the SQL of the fingerprint a read reports (FailedPrefix for failed units).
const storedFingerprint = `CASE WHEN failed != 0 THEN '` + FailedPrefix + `' || fingerprint ELSE fingerprint END`

// Fingerprints returns the fingerprint of every recorded unit of a stage (FailedPrefix before
// the fingerprint of a failed one).
func (s *Store) Fingerprints(ctx context.Context, stage string) (map[string]string, error) {
	rows, err := s.reader().QueryContext(ctx, `SELECT unit, `+storedFingerprint+` FROM units WHERE stage = ?`, stage)
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

// Fingerprint returns the fingerprint of one recorded unit, if any (FailedPrefix before the
// fingerprint of a failed one).
func (s *Store) Fingerprint(ctx context.Context, stage, unit string) (string, bool, error) {
	var f string
	err := s.reader().QueryRowContext(ctx, `SELECT `+storedFingerprint+` FROM units WHERE stage=? AND unit=?`, stage, unit).Scan(&f)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s record %s: %w", stage, unit, err)
	}
	return f, true, nil
}

// StageCount is the number of recorded units of a stage: done, and failed.
type StageCount struct {
	Stage  string
	Units  int // done
	Failed int // recorded as failed (CommitFailedUnit)
}

// StageCounts lists recorded units per stage, sorted by stage.
func (s *Store) StageCounts(ctx context.Context) ([]StageCount, error) {
	rows, err := s.reader().QueryContext(ctx, `SELECT stage, sum(failed = 0), sum(failed != 0) FROM units GROUP BY stage ORDER BY stage`)
	if err != nil {
		return nil, fmt.Errorf("reading stage records: %w", err)
	}
	defer rows.Close()
	var out []StageCount
	for rows.Next() {
		var c StageCount
		if err := rows.Scan(&c.Stage, &c.Units, &c.Failed); err != nil {
			return nil, fmt.Errorf("reading stage records: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CommitUnit writes a unit's outputs (through fn) and its completion record in one transaction.
func (s *Store) CommitUnit(ctx context.Context, stage, unit, fingerprint string, fn func(*Tx) error) error {
	return s.commit(ctx, stage, unit, fingerprint, nil, fn)
}

// UnitFailure is why a unit failed: the error and the raw answer that caused it.
type UnitFailure struct {
	Reason string
	Raw    string
}

// CommitFailedUnit writes a failed unit's outputs (through fn: what the stage puts in place of
// the bad answers) and records the unit as failed with f, in one transaction. A failed unit
// reads back with FailedPrefix before its fingerprint, so it runs again on the next run.
func (s *Store) CommitFailedUnit(ctx context.Context, stage, unit, fingerprint string, f UnitFailure, fn func(*Tx) error) error {
	return s.commit(ctx, stage, unit, fingerprint, &f, fn)
}

// CommitUnits writes the outputs of several units (through fn) and the records of them all, with
// one fingerprint and, when f is not nil, one failure, in one transaction: the episodes of one
// extraction window, whose one answer gives every output.
func (s *Store) CommitUnits(ctx context.Context, stage string, units []string, fingerprint string, f *UnitFailure, fn func(*Tx) error) error {
	return s.commitAll(ctx, stage, units, fingerprint, f, fn)
}

func (s *Store) commit(ctx context.Context, stage, unit, fingerprint string, f *UnitFailure, fn func(*Tx) error) error {
	return s.commitAll(ctx, stage, []string{unit}, fingerprint, f, fn)
}

func (s *Store) commitAll(ctx context.Context, stage string, units []string, fingerprint string, f *UnitFailure, fn func(*Tx) error) error {
	failed, reason, raw := 0, "", ""
	if f != nil {
		failed, reason, raw = 1, f.Reason, f.Raw
	}
	return s.Write(ctx, func(tx *Tx) error {
		if fn != nil {
			if err := fn(tx); err != nil {
				return fmt.Errorf("writing %s unit %s: %w", stage, units[0], err)
			}
		}
		for _, unit := range units {
			_, err := tx.tx.ExecContext(ctx, `INSERT INTO units(stage,unit,fingerprint,failed,reason,raw) VALUES(?,?,?,?,?,?)
			ON CONFLICT(stage,unit) DO UPDATE SET fingerprint=excluded.fingerprint, failed=excluded.failed,
			reason=excluded.reason, raw=excluded.raw`, stage, unit, fingerprint, failed, reason, raw)
			if err != nil {
				return fmt.Errorf("recording %s unit %s: %w", stage, unit, err)
			}
		}
		return nil
	})
}

// FailedUnit is a unit recorded as failed.
type FailedUnit struct {
	Stage  string `json:"stage"`
	Unit   string `json:"unit"`
	Group  string `json:"group"` // the unit's group: the unit itself for group units
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

// EachFailedUnit calls fn for every unit recorded as failed, by stage and unit.
func (s *Store) EachFailedUnit(ctx context.Context, fn func(FailedUnit) error) error {
	rows, err := s.reader().QueryContext(ctx, `SELECT u.stage, u.unit, coalesce(e.group_id, u.unit), u.reason, u.raw
		FROM units u LEFT JOIN episodes e ON e.uuid = u.unit WHERE u.failed != 0 ORDER BY u.stage, u.unit`)
	if err != nil {
		return fmt.Errorf("reading failed units: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f FailedUnit
		if err := rows.Scan(&f.Stage, &f.Unit, &f.Group, &f.Reason, &f.Raw); err != nil {
			return fmt.Errorf("reading failed units: %w", err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return rows.Err()
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
	err := s.reader().QueryRowContext(ctx, `SELECT body FROM stage_outputs WHERE stage=? AND unit=?`, stage, unit).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s output %s: %w", stage, unit, err)
	}
	return b, true, nil
}

// GroupOutputs reads the intermediate outputs of a stage for the given units, keyed by unit.
func (s *Store) GroupOutputs(ctx context.Context, stage, group string) (map[string][]byte, error) {
	rows, err := s.reader().QueryContext(ctx, `SELECT unit, body FROM stage_outputs WHERE stage=? AND group_id=?`, stage, group)
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
	rows, err := s.reader().QueryContext(ctx, `SELECT u.unit, CASE WHEN u.failed != 0 THEN '`+FailedPrefix+`' || u.fingerprint ELSE u.fingerprint END
		FROM episodes e CROSS JOIN units u ON u.stage = ? AND u.unit = e.uuid WHERE e.group_id = ?`, stage, group)
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

// DropUnit deletes the record of a unit (the load record of a group emptied by forgetting).
func (s *Store) DropUnit(ctx context.Context, stage, unit string) error {
	return s.Write(ctx, func(tx *Tx) error {
		return tx.exec(ctx, "dropping the "+stage+" record of "+unit, `DELETE FROM units WHERE stage = ? AND unit = ?`, stage, unit)
	})
}
