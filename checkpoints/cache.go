package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/llm/cache"
)

// Get returns a cached LLM answer; it makes the store an llm.Cache.
func (s *Store) Get(ctx context.Context, key string) (cache.Entry, bool, error) {
	var e cache.Entry
	err := s.r.QueryRowContext(ctx, `SELECT namespace, response, prompt_tokens, completion_tokens FROM llm_cache WHERE key=?`, key).
		Scan(&e.Namespace, &e.Response, &e.PromptTokens, &e.CompletionTokens)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, nil
	}
	if err != nil {
		return e, false, fmt.Errorf("reading llm cache: %w", err)
	}
	return e, true, nil
}

// Put stores an LLM answer.
func (s *Store) Put(ctx context.Context, key string, e cache.Entry) error {
	return s.Write(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT OR REPLACE INTO llm_cache(key,namespace,response,prompt_tokens,completion_tokens) VALUES(?,?,?,?,?)`,
			key, e.Namespace, e.Response, e.PromptTokens, e.CompletionTokens)
		if err != nil {
			return fmt.Errorf("writing llm cache: %w", err)
		}
		return nil
	})
}
