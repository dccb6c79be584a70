package graphdb

import (
	"context"
	"fmt"

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
