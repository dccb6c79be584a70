package graphdb

import (
	"context"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// checkIndexes runs after PostLoad: on Neo4j it asks which of the indexes Load does not await
// after its last write (cypher.IndexesAfterLoad: the vector indexes; with IndexesBackground every
// index PostLoad created) are not online yet. Neo4j populates them in the background: their
// names go into Result.IndexesPopulating and the log says so. An index that failed to populate
// fails the load. Memgraph builds its indexes as it creates them: nothing to ask.
func (l *Loader) checkIndexes(ctx context.Context) error {
	q := cypher.UnreadyIndexes(l.o.Dialect)
	names := cypher.IndexesAfterLoad(l.schemaOptions())
	if q == "" || len(names) == 0 {
		return nil
	}
	var pending []string
	err := l.retrier().do(ctx, func(ctx context.Context) error {
		pending = pending[:0]
		params := map[string]any{"names": names}
		return l.ex.query(ctx, l.o.Database, q, params, func(v []any) error {
			name, state := fmt.Sprint(v[0]), fmt.Sprint(v[1])
			if state == "FAILED" {
				return fmt.Errorf("index %s failed to populate (SHOW INDEXES shows why)", name)
			}
			pending = append(pending, name)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("checking the indexes created after the load: %w", err)
	}
	l.res.IndexesPopulating = pending
	if len(pending) > 0 {
		l.o.Log.Info("the load is written; Neo4j populates these indexes in the background (SHOW INDEXES shows their progress)",
			"indexes", pending)
	}
	return nil
}

// awaitPoll is how often await asks again.
const awaitPoll = 100 * time.Millisecond

// await runs q (a cypher.Statement marked Await: one count of what is not ready, FalkorDB's
// indexes under construction) in graph until it returns 0, for at most cypher.AwaitSeconds.
func (l *Loader) await(ctx context.Context, graph, q string) error {
	deadline := time.Now().Add(cypher.AwaitSeconds * time.Second)
	for {
		var n int64
		err := l.retrier().do(ctx, func(ctx context.Context) error {
			n = 0
			return l.ex.query(ctx, graph, q, nil, func(v []any) error {
				n, _ = v[0].(int64)
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("waiting for the indexes of graph %s: %w", graph, err)
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for the indexes of graph %s: %d not ready after %d s", graph, n, cypher.AwaitSeconds)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(awaitPoll):
		}
	}
}
