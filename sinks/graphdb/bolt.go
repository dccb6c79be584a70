package graphdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// boltExec talks Bolt through the Neo4j Go driver; a graph is a database name ("" the server's
// default).
type boltExec struct {
	driver neo4j.DriverWithContext
}

// dialBolt creates a driver for uri with room for sessions concurrent sessions. Empty user and
// password mean no authentication.
func dialBolt(uri, user, password string, sessions int) (*boltExec, error) {
	auth := neo4j.NoAuth()
	if user != "" || password != "" {
		auth = neo4j.BasicAuth(user, password, "")
	}
	drv, err := neo4j.NewDriverWithContext(uri, auth, func(c *neo4j.Config) {
		c.UserAgent = "backfill"
		c.MaxConnectionPoolSize = max(8, sessions+2)
	})
	if err != nil {
		return nil, fmt.Errorf("creating bolt driver for %s: %w", uri, err)
	}
	return &boltExec{driver: drv}, nil
}

func (b *boltExec) session(ctx context.Context, database string, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return b.driver.NewSession(ctx, neo4j.SessionConfig{AccessMode: mode, DatabaseName: database})
}

// encode sends a row as it is, a Bolt parameter; its size is rowBytes.
func (b *boltExec) encode(row cypher.Row) (any, int, error) { return row, rowBytes(row), nil }

func (b *boltExec) ping(ctx context.Context) error { return b.driver.VerifyConnectivity(ctx) }

func (b *boltExec) exec(ctx context.Context, db string, st cypher.Statement, params map[string]any) error {
	return cancelled(ctx, b.run(ctx, db, st, params))
}

// cancelled makes an error the driver returned after ctx ended wrap ctx.Err(), so callers see
// context.Canceled (the driver's own cancellation errors do not wrap it).
func cancelled(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

func (b *boltExec) run(ctx context.Context, db string, st cypher.Statement, params map[string]any) error {
	if st.Command != nil {
		return fmt.Errorf("%s is a FalkorDB command, not Cypher", st.Cypher)
	}
	if !st.AutoCommit {
		return b.runTx(ctx, db, []cypher.Statement{st}, params, nil)
	}
	sess := b.session(ctx, db, neo4j.AccessModeWrite)
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, st.Cypher, params)
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

func (b *boltExec) execAll(ctx context.Context, db string, sts []cypher.Statement) error {
	return cancelled(ctx, b.runTx(ctx, db, sts, nil, nil))
}

// runTx runs statements with params in one explicit transaction and commits it; fn, when not
// nil, receives each record's values.
func (b *boltExec) runTx(ctx context.Context, db string, sts []cypher.Statement, params map[string]any, fn func([]any) error) error {
	sess := b.session(ctx, db, neo4j.AccessModeWrite)
	defer sess.Close(ctx)
	tx, err := sess.BeginTransaction(ctx)
	if err != nil {
		return err
	}
	defer tx.Close(ctx) // rolls back unless committed
	for _, st := range sts {
		res, err := tx.Run(ctx, st.Cypher, params)
		if err != nil {
			return err
		}
		for fn != nil && res.Next(ctx) {
			if err := fn(res.Record().Values); err != nil {
				return err
			}
		}
		if _, err := res.Consume(ctx); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

func (b *boltExec) queryWrite(ctx context.Context, db, text string, params map[string]any, fn func([]any) error) error {
	return cancelled(ctx, b.runTx(ctx, db, []cypher.Statement{{Cypher: text}}, params, fn))
}

func (b *boltExec) query(ctx context.Context, db, text string, params map[string]any, fn func([]any) error) error {
	return cancelled(ctx, b.read(ctx, db, text, params, fn))
}

func (b *boltExec) read(ctx context.Context, db, text string, params map[string]any, fn func([]any) error) error {
	sess := b.session(ctx, db, neo4j.AccessModeRead)
	defer sess.Close(ctx)
	res, err := sess.Run(ctx, text, params)
	if err != nil {
		return err
	}
	for res.Next(ctx) {
		if err := fn(res.Record().Values); err != nil {
			return err
		}
	}
	return res.Err()
}

func (b *boltExec) close(ctx context.Context) error { return b.driver.Close(ctx) }
