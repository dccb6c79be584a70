package graphdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// DefaultQueryTimeout bounds one FalkorDB query (a batch, a list, a count): the connection's read
// deadline. A query still running then fails with a network timeout, which is transient: the
// batch is tried again (idempotently) under the retry policy.
const DefaultQueryTimeout = 5 * time.Minute

// respExec talks to FalkorDB over RESP (GRAPH.QUERY, GRAPH.RO_QUERY) with go-redis. FalkorDB takes
// parameters only as a "CYPHER k=v …" prefix of the query text, so every parameter is written as
// a literal (cypher.WriteLiteral in the falkordb dialect); batch rows are rendered once, when
// they are queued (encode). Replies are read in the compact format, which keeps value types.
type respExec struct {
	client *redis.Client
}

// dialRESP creates a client for a redis:// or rediss:// URI with room for sessions concurrent
// queries. user and password, when set, replace those of the URI. go-redis's own retries are
// off: the loader's retrier decides (a CREATE batch must be tried again as MERGE, and every
// retry is counted).
func dialRESP(uri, user, password string, sessions int) (*respExec, error) {
	o, err := redis.ParseURL(uri)
	if err != nil {
		return nil, fmt.Errorf("parsing FalkorDB URI %s: %w", uri, err)
	}
	if user != "" {
		o.Username = user
	}
	if password != "" {
		o.Password = password
	}
	o.Protocol = 2
	o.PoolSize = max(8, sessions+2)
	o.MaxRetries = -1
	o.ReadTimeout = DefaultQueryTimeout
	o.WriteTimeout = DefaultQueryTimeout
	o.ContextTimeoutEnabled = true
	o.DisableIdentity = true
	return &respExec{client: redis.NewClient(o)}, nil
}

// encode renders a row as a FalkorDB literal; its size is the literal's length.
func (r *respExec) encode(row cypher.Row) (any, int, error) {
	var b strings.Builder
	if err := cypher.WriteLiteral(&b, cypher.FalkorDB, row); err != nil {
		return nil, 0, fmt.Errorf("row %v: %w", row[cypher.KeyUUID], err)
	}
	return cypher.Literal(b.String()), b.Len(), nil
}

func (r *respExec) ping(ctx context.Context) error { return r.client.Ping(ctx).Err() }

func (r *respExec) exec(ctx context.Context, graph string, st cypher.Statement, params map[string]any) error {
	if st.Command != nil {
		args := make([]any, len(st.Command))
		for i, a := range st.Command {
			if a == cypher.GraphArg {
				args[i] = graph
			} else {
				args[i] = a
			}
		}
		return cancelled(ctx, r.client.Do(ctx, args...).Err())
	}
	q, err := cypher.FalkorQuery(st.Cypher, params)
	if err != nil {
		return err
	}
	return cancelled(ctx, r.client.Do(ctx, "GRAPH.QUERY", graph, q, "--compact").Err())
}

func (r *respExec) queryWrite(ctx context.Context, graph, text string, params map[string]any, fn func([]any) error) error {
	return r.rows(ctx, "GRAPH.QUERY", graph, text, params, fn)
}

func (r *respExec) execAll(ctx context.Context, graph string, sts []cypher.Statement) error {
	for _, st := range sts {
		if err := r.exec(ctx, graph, st, nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *respExec) query(ctx context.Context, graph, text string, params map[string]any, fn func([]any) error) error {
	return r.rows(ctx, "GRAPH.RO_QUERY", graph, text, params, fn)
}

// rows runs text with cmd (GRAPH.QUERY or GRAPH.RO_QUERY) and calls fn with each row.
func (r *respExec) rows(ctx context.Context, cmd, graph, text string, params map[string]any, fn func([]any) error) error {
	q, err := cypher.FalkorQuery(text, params)
	if err != nil {
		return err
	}
	res, err := r.client.Do(ctx, cmd, graph, q, "--compact").Result()
	if cypher.MissingGraph(err) {
		return nil
	}
	if err != nil {
		return cancelled(ctx, err)
	}
	_, rows, err := cypher.FalkorReply(res)
	if err != nil {
		return fmt.Errorf("reading the answer of graph %s: %w", graph, err)
	}
	for _, row := range rows {
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

func (r *respExec) close(context.Context) error { return r.client.Close() }

// transientRedis reports whether err is a server reply worth another attempt: the server is
// loading its data after a restart (LOADING), busy with a script (BUSY), asks to try again
// (TRYAGAIN, MASTERDOWN), or FalkorDB's query backlog is full; or the client's pool timed out.
func transientRedis(err error) bool {
	if errors.Is(err, redis.ErrPoolTimeout) {
		return true
	}
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	msg := re.Error()
	for _, p := range []string{"LOADING ", "BUSY ", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return strings.Contains(msg, "Max pending queries exceeded")
}
