package graphdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	q, err := withParams(st.Cypher, params)
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
	q, err := withParams(text, params)
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
	rows, err := compactRows(res)
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

// withParams prefixes text with "CYPHER k=v … " for params, keys in sorted order.
func withParams(text string, params map[string]any) (string, error) {
	if len(params) == 0 {
		return text, nil
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("CYPHER ")
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		if err := cypher.WriteLiteral(&b, cypher.FalkorDB, params[k]); err != nil {
			return "", fmt.Errorf("writing parameter %s: %w", k, err)
		}
		b.WriteByte(' ')
	}
	b.WriteString(text)
	return b.String(), nil
}

// compactRows decodes the rows of a compact GRAPH.QUERY reply: [header, rows, statistics], or
// [statistics] for a query that returns nothing.
func compactRows(res any) ([][]any, error) {
	parts, ok := res.([]any)
	if !ok {
		return nil, fmt.Errorf("reply is %T, not an array", res)
	}
	if len(parts) < 3 {
		return nil, nil
	}
	raw, ok := parts[1].([]any)
	if !ok {
		return nil, fmt.Errorf("rows are %T, not an array", parts[1])
	}
	out := make([][]any, len(raw))
	for i, r := range raw {
		cells, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("row %d is %T, not an array", i, r)
		}
		out[i] = make([]any, len(cells))
		for j, c := range cells {
			v, err := compactValue(c)
			if err != nil {
				return nil, fmt.Errorf("row %d, column %d: %w", i, j, err)
			}
			out[i][j] = v
		}
	}
	return out, nil
}

// Value types of FalkorDB's compact reply format.
const (
	compactNull    = 1
	compactString  = 2
	compactInteger = 3
	compactBoolean = 4
	compactDouble  = 5
	compactArray   = 6
	compactVectorF = 12
)

// compactValue decodes one [type, value] cell: null, string, integer (int64), boolean, double
// (float64), array ([]any) and vecf32 ([]any of float64). Nodes, edges, paths, maps and points
// are errors: the loader's queries return none.
func compactValue(c any) (any, error) {
	pair, ok := c.([]any)
	if !ok || len(pair) != 2 {
		return nil, fmt.Errorf("cell %v is not a [type, value] pair", c)
	}
	typ, _ := pair[0].(int64)
	v := pair[1]
	switch typ {
	case compactNull:
		return nil, nil
	case compactString, compactInteger:
		return v, nil
	case compactBoolean:
		return v == "true", nil
	case compactDouble:
		s, _ := v.(string)
		return strconv.ParseFloat(s, 64)
	case compactArray:
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			x, err := compactValue(it)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case compactVectorF:
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			s, _ := it.(string)
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	return nil, fmt.Errorf("value type %d is not read by the loader", typ)
}

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
