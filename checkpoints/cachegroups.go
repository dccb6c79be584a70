package checkpoints

import (
	"context"
	"fmt"
)

// cacheGroupsTable records, for each cached answer, the groups whose units asked it: a unit
// of a group carries only that group's text (nothing crosses groups), so the groups of a row
// are where the text of its request came from. live is 0 from the moment a forgetting marks the
// group (Forget) until a unit of the group asks the same request again; the rows a group no
// longer asks lose the group when the forgetting completes (Purge), and a row that no group
// asks any more is deleted.
const cacheGroupsTable = `CREATE TABLE IF NOT EXISTS llm_cache_groups (
		key TEXT NOT NULL, group_id TEXT NOT NULL, live INTEGER NOT NULL DEFAULT 1,
		PRIMARY KEY (key, group_id)) WITHOUT ROWID`

const cacheGroupsIndex = `CREATE INDEX IF NOT EXISTS llm_cache_groups_group ON llm_cache_groups (group_id, live)`

// groupKey is the context key of the group whose unit makes a call.
type groupKey struct{}

// ForGroup returns ctx marked as the context of a unit of group: the cache answers (Get, Put)
// made under it are recorded as carrying the group's text. The stage runner marks every unit's
// context (stages.Unit.Group).
func ForGroup(ctx context.Context, group string) context.Context {
	return context.WithValue(ctx, groupKey{}, group)
}

// groupOf is the group ctx was marked with (ForGroup), or "".
func groupOf(ctx context.Context) string {
	g, _ := ctx.Value(groupKey{}).(string)
	return g
}

// tagCache records that group asked the cached answer under key (live), in tx.
func tagCache(ctx context.Context, tx *Tx, key, group string) error {
	_, err := tx.tx.ExecContext(ctx, `INSERT INTO llm_cache_groups(key, group_id, live) VALUES(?,?,1)
		ON CONFLICT(key, group_id) DO UPDATE SET live=1`, key, group)
	if err != nil {
		return fmt.Errorf("recording the group of a cached answer: %w", err)
	}
	return nil
}
