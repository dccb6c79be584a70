package checkpoints

import (
	"context"
	"fmt"
)

// ownedTable records what the graph-database loader wrote into each sink target (its identity:
// dialect, URI, database): per group, the kind (node label or relationship type) and uuid of
// every element, a hash of the properties written ("" for a claim: an element about to be
// written whose load is not verified yet) and kind-specific facts the loader keeps (extra:
// JSON, "" when none). It never holds the text of an element.
const ownedTable = `CREATE TABLE IF NOT EXISTS sink_owned (
		target TEXT NOT NULL, group_id TEXT NOT NULL, kind TEXT NOT NULL, uuid TEXT NOT NULL,
		hash TEXT NOT NULL, extra TEXT NOT NULL DEFAULT '', PRIMARY KEY (target, group_id, kind, uuid))`

// Owned is one element of a sink target's ownership record (sink_owned).
type Owned struct {
	Group string
	Kind  string // node label or relationship type
	UUID  string
	Hash  string // hash of the properties written; "" for a claim
	Extra string // what else the loader keeps about the element (JSON), "" when nothing
}

// EachOwned calls fn for every element recorded for group in target, by kind and uuid.
func (s *Store) EachOwned(ctx context.Context, target, group string, fn func(Owned) error) error {
	rows, err := s.reader().QueryContext(ctx, `SELECT kind, uuid, hash, extra FROM sink_owned
		WHERE target = ? AND group_id = ? ORDER BY kind, uuid`, target, group)
	if err != nil {
		return fmt.Errorf("reading what the loader wrote of group %s: %w", group, err)
	}
	defer rows.Close()
	for rows.Next() {
		o := Owned{Group: group}
		if err := rows.Scan(&o.Kind, &o.UUID, &o.Hash, &o.Extra); err != nil {
			return fmt.Errorf("reading what the loader wrote of group %s: %w", group, err)
		}
		if err := fn(o); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ClaimOwned records elements about to be written into target with an empty hash, leaving the
// elements already recorded as they are: a load killed after writing them leaves them owned, so
// the next load deletes those it no longer produces.
func (s *Store) ClaimOwned(ctx context.Context, target string, els []Owned) error {
	if len(els) == 0 {
		return nil
	}
	return s.Write(ctx, func(tx *Tx) error {
		stmt, err := tx.tx.PrepareContext(ctx, `INSERT INTO sink_owned(target, group_id, kind, uuid, hash, extra)
			VALUES(?,?,?,?,'','') ON CONFLICT DO NOTHING`)
		if err != nil {
			return fmt.Errorf("claiming elements to load: %w", err)
		}
		defer stmt.Close()
		for _, o := range els {
			if _, err := stmt.ExecContext(ctx, target, o.Group, o.Kind, o.UUID); err != nil {
				return fmt.Errorf("claiming %s %s of group %s: %w", o.Kind, o.UUID, o.Group, err)
			}
		}
		return nil
	})
}

// SetOwned replaces the record of group in target with els (their Group is ignored): what a
// verified load left of the group. No elements drop the group's record.
func (s *Store) SetOwned(ctx context.Context, target, group string, els []Owned) error {
	return s.Write(ctx, func(tx *Tx) error {
		if err := tx.exec(ctx, "clearing what the loader wrote of group "+group,
			`DELETE FROM sink_owned WHERE target = ? AND group_id = ?`, target, group); err != nil {
			return err
		}
		if len(els) == 0 {
			return nil
		}
		stmt, err := tx.tx.PrepareContext(ctx, `INSERT INTO sink_owned(target, group_id, kind, uuid, hash, extra)
			VALUES(?,?,?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("recording what the loader wrote of group %s: %w", group, err)
		}
		defer stmt.Close()
		for _, o := range els {
			if _, err := stmt.ExecContext(ctx, target, group, o.Kind, o.UUID, o.Hash, o.Extra); err != nil {
				return fmt.Errorf("recording %s %s of group %s: %w", o.Kind, o.UUID, group, err)
			}
		}
		return nil
	})
}

// DropUnits deletes the records of units of a stage in one transaction (the load records of the
// groups a load is about to write: a load that fails leaves them unrecorded, so the next run
// loads them again instead of skipping them).
func (s *Store) DropUnits(ctx context.Context, stage string, units []string) error {
	if len(units) == 0 {
		return nil
	}
	return s.Write(ctx, func(tx *Tx) error {
		for _, u := range units {
			if err := tx.exec(ctx, "dropping the "+stage+" record of "+u,
				`DELETE FROM units WHERE stage = ? AND unit = ?`, stage, u); err != nil {
				return err
			}
		}
		return nil
	})
}
