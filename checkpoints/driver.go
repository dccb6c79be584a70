package checkpoints

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"

	"modernc.org/sqlite"
)

// namingConnector opens connections to one store file through modernc.org/sqlite and passes
// every error they return through describe: an error about the file (corrupt, not a database,
// read-only, disk full, …) that surfaces in any query, in a row scanned long after the query
// started, or in a commit names the store and says what to do, whichever method of the store
// ran into it. Other errors (a constraint, a cancelled context, driver.ErrBadConn) pass
// unchanged, so database/sql's own handling of them is kept.
type namingConnector struct {
	dsn  string
	path string
	drv  *sqlite.Driver
}

// openNamed is sql.Open of the sqlite driver with errors describing the store at path.
func openNamed(dsn, path string) *sql.DB {
	return sql.OpenDB(namingConnector{dsn: dsn, path: path, drv: &sqlite.Driver{}})
}

func (c namingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, describe(c.path, err)
	}
	return &namingConn{inner: conn, path: c.path}, nil
}

func (c namingConnector) Driver() driver.Driver { return c.drv }

// sqliteConn is what modernc.org/sqlite's connections implement and database/sql uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// namingConn is a connection whose errors name the store.
type namingConn struct {
	inner driver.Conn
	path  string
}

var (
	_ sqliteConn  = (*namingConn)(nil)
	_ driver.Stmt = namingStmt{}
	_ driver.Rows = namingRows{}
	_ driver.Tx   = namingTx{}
)

func (c *namingConn) err(err error) error {
	if err == nil || errors.Is(err, driver.ErrSkip) {
		return err
	}
	return describe(c.path, err)
}

func (c *namingConn) ctxConn() sqliteConn { return c.inner.(sqliteConn) }

func (c *namingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *namingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.ctxConn().PrepareContext(ctx, query)
	if err != nil {
		return nil, c.err(err)
	}
	return namingStmt{inner: s, c: c}, nil
}

func (c *namingConn) Close() error { return c.err(c.inner.Close()) }

func (c *namingConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *namingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	t, err := c.ctxConn().BeginTx(ctx, opts)
	if err != nil {
		return nil, c.err(err)
	}
	return namingTx{inner: t, c: c}, nil
}

func (c *namingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.ctxConn().ExecContext(ctx, query, args)
	return r, c.err(err)
}

func (c *namingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.ctxConn().QueryContext(ctx, query, args)
	if err != nil {
		return nil, c.err(err)
	}
	return namingRows{inner: r, c: c}, nil
}

func (c *namingConn) Ping(ctx context.Context) error { return c.err(c.ctxConn().Ping(ctx)) }

func (c *namingConn) ResetSession(ctx context.Context) error {
	return c.ctxConn().ResetSession(ctx) // driver.ErrBadConn must reach database/sql as it is
}

func (c *namingConn) IsValid() bool { return c.ctxConn().IsValid() }

// named turns positional arguments into named ones (ordinal positions, no names).
func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return out
}

// namingStmt is a prepared statement whose errors name the store.
type namingStmt struct {
	inner driver.Stmt
	c     *namingConn
}

type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

func (s namingStmt) Close() error  { return s.c.err(s.inner.Close()) }
func (s namingStmt) NumInput() int { return s.inner.NumInput() }

func (s namingStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s namingStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s namingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.inner.(sqliteStmt).ExecContext(ctx, args)
	return r, s.c.err(err)
}

func (s namingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.inner.(sqliteStmt).QueryContext(ctx, args)
	if err != nil {
		return nil, s.c.err(err)
	}
	return namingRows{inner: r, c: s.c}, nil
}

// namingRows are rows whose errors (a damaged page met while stepping) name the store.
type namingRows struct {
	inner driver.Rows
	c     *namingConn
}

func (r namingRows) Columns() []string { return r.inner.Columns() }
func (r namingRows) Close() error      { return r.c.err(r.inner.Close()) }

func (r namingRows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if errors.Is(err, io.EOF) {
		return err
	}
	return r.c.err(err)
}

// namingTx is a transaction whose commit and rollback errors name the store.
type namingTx struct {
	inner driver.Tx
	c     *namingConn
}

func (t namingTx) Commit() error   { return t.c.err(t.inner.Commit()) }
func (t namingTx) Rollback() error { return t.c.err(t.inner.Rollback()) }
