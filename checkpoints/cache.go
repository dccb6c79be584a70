package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/llm/cache"
)

// Get returns a cached LLM answer; it makes the store a cache.Cache. Under a unit's context
// (ForGroup) a hit the group had not asked before, or not since a forgetting marked it, is
// recorded as the group's (llm_cache_groups).
func (s *Store) Get(ctx context.Context, key string) (cache.Entry, bool, error) {
	var e cache.Entry
	var live sql.NullInt64
	group := groupOf(ctx)
	err := s.reader().QueryRowContext(ctx, `SELECT c.namespace, c.response, c.prompt_tokens, c.completion_tokens, g.live
		FROM llm_cache c LEFT JOIN llm_cache_groups g ON g.key = c.key AND g.group_id = ? WHERE c.key=?`, group, key).
		Scan(&e.Namespace, &e.Response, &e.PromptTokens, &e.CompletionTokens, &live)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("reading llm cache: %w", err)
	}
	if group != "" && live.Int64 == 0 && !s.readOnly {
		if err := s.Write(ctx, func(tx *Tx) error { return tagCache(ctx, tx, key, group) }); err != nil {
			return e, false, err
		}
	}
	return e, true, nil
}

// Put stores an LLM answer, under a unit's context (ForGroup) as the group's.
func (s *Store) Put(ctx context.Context, key string, e cache.Entry) error {
	return s.Write(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT OR REPLACE INTO llm_cache(key,namespace,response,prompt_tokens,completion_tokens) VALUES(?,?,?,?,?)`,
			key, e.Namespace, e.Response, e.PromptTokens, e.CompletionTokens)
		if err != nil {
			return fmt.Errorf("writing llm cache: %w", err)
		}
		if g := groupOf(ctx); g != "" {
			return tagCache(ctx, tx, key, g)
		}
		return nil
	})
}
