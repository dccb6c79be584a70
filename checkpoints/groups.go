package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
)

// ClaimGroups records, for each group id of originals, the id as the input wrote it (the id
// itself when it needed no mapping), and returns the ids already recorded with another
// original: two different input ids that would share one graph. Those ids are not changed; the
// caller keeps their rows out of the store.
func (s *Store) ClaimGroups(ctx context.Context, originals map[string]string) (map[string]string, error) {
	ids := make([]string, 0, len(originals))
	for id := range originals {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var clash map[string]string
	err := s.Write(ctx, func(tx *Tx) error {
		stmt, err := tx.tx.PrepareContext(ctx, `INSERT INTO group_ids(group_id, original) VALUES(?,?)
			ON CONFLICT(group_id) DO UPDATE SET original=original RETURNING original`)
		if err != nil {
			return fmt.Errorf("recording groups: %w", err)
		}
		defer stmt.Close()
		for _, id := range ids {
			var have string
			err := stmt.QueryRowContext(ctx, id, originals[id]).Scan(&have)
			if err != nil {
				return fmt.Errorf("recording group %s: %w", id, err)
			}
			if have != originals[id] {
				if clash == nil {
					clash = map[string]string{}
				}
				clash[id] = have
			}
		}
		return nil
	})
	return clash, err
}

// GroupOriginal returns the id a group was written as in the input; ok is false when the store
// has no record of the group.
func (s *Store) GroupOriginal(ctx context.Context, id string) (original string, ok bool, err error) {
	err = s.reader().QueryRowContext(ctx, `SELECT original FROM group_ids WHERE group_id=?`, id).Scan(&original)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading group %s: %w", id, err)
	}
	return original, true, nil
}

// MappedGroups counts the groups whose id differs from the id the input wrote, and returns up
// to limit of them (id → original, the first ids in order).
func (s *Store) MappedGroups(ctx context.Context, limit int) (int, map[string]string, error) {
	n, err := s.count(ctx, `SELECT count(*) FROM group_ids WHERE group_id <> original`)
	if err != nil {
		return 0, nil, err
	}
	out := map[string]string{}
	err = s.each(ctx, "groups", `SELECT group_id, original FROM group_ids WHERE group_id <> original ORDER BY group_id LIMIT ?`,
		[]any{limit}, func(r *sql.Rows) error {
			var id, orig string
			if err := r.Scan(&id, &orig); err != nil {
				return err
			}
			out[id] = orig
			return nil
		})
	return n, out, err
}

// HasGroup reports whether any staged episode belongs to the group.
func (s *Store) HasGroup(ctx context.Context, id string) (bool, error) {
	n, err := s.count(ctx, `SELECT count(*) FROM (SELECT 1 FROM episodes WHERE group_id=? LIMIT 1)`, id)
	return n > 0, err
}
