package snapshots

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/redis/go-redis/v9"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// FalkorDBOptions say which server OpenFalkorDB reads.
type FalkorDBOptions struct {
	// URI is a redis:// or rediss:// URI (a Redis database number as its path) without
	// credentials.
	URI string
	// User and Password authenticate (Redis AUTH; both empty: none).
	User, Password string
}

// IsFalkorDBURI reports whether s is a redis:// or rediss:// URI, which Open reads with
// OpenFalkorDB.
func IsFalkorDBURI(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	return ok && (scheme == "redis" || scheme == "rediss")
}

// falkorSnapshot reads the graphs Graphiti's FalkorDriver (or backfill's FalkorDB sink) wrote:
// a graph per group.
type falkorSnapshot struct {
	client *redis.Client
	uri    string
}

// OpenFalkorDB connects to a FalkorDB server and reads its groups read-only (GRAPH.RO_QUERY), a
// group at a time: each group from the graph cypher.GraphName names. It checks that the server
// answers. Queries have no deadline of their own: the context bounds them.
func OpenFalkorDB(ctx context.Context, o FalkorDBOptions) (Snapshot, error) {
	u, err := url.Parse(o.URI)
	if err != nil || !IsFalkorDBURI(o.URI) {
		return nil, fmt.Errorf("opening graph %s: not a FalkorDB URI (redis://HOST:PORT or rediss://HOST:PORT)", withoutUser(o.URI))
	}
	if u.User != nil {
		return nil, fmt.Errorf("opening graph %s://%s: credentials in the URI; give them in the environment instead", u.Scheme, u.Host)
	}
	ro, err := redis.ParseURL(o.URI)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", withoutUser(o.URI), err)
	}
	ro.Username, ro.Password = o.User, o.Password
	ro.Protocol, ro.DisableIdentity = 2, true
	ro.ReadTimeout, ro.ContextTimeoutEnabled = -1, true
	c := redis.NewClient(ro)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("opening graph %s: %w", o.URI, err)
	}
	return &falkorSnapshot{client: c, uri: o.URI}, nil
}

func (f *falkorSnapshot) HasVersions() bool { return false }

func (f *falkorSnapshot) Kind() string { return KindFalkorDB }

func (f *falkorSnapshot) Describe() string { return KindFalkorDB + " " + f.uri }

func (f *falkorSnapshot) Runs(context.Context) ([]checkpoints.Run, error) { return nil, nil }

func (f *falkorSnapshot) Close() error { return f.client.Close() }

// groupOf is the group whose graph is name (cypher.GraphName the other way round).
func groupOf(name string) string {
	if name == cypher.DefaultFalkorGraph {
		return "_"
	}
	return name
}

func (f *falkorSnapshot) Groups(ctx context.Context, want func(string) bool) iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		ids, err := f.groups(ctx, want)
		if err != nil {
			yield(nil, fmt.Errorf("listing groups of %s: %w", f.Describe(), err))
			return
		}
		for _, id := range ids {
			g, err := readGroup(ctx, id, f.query(cypher.GraphName(id)))
			if err != nil {
				yield(nil, fmt.Errorf("reading group %s of %s: %w", id, f.Describe(), err))
				return
			}
			if !yield(g, nil) {
				return
			}
		}
	}
}

// groups lists the groups want accepts, in ascending order: of each graph of the server
// (GRAPH.LIST) whose group want accepts, the group ids of its Episodic, Entity and Community
// nodes. A graph without such nodes holds no group; one holding another group's nodes is an
// error (graphiti-core and backfill keep every group in the graph named after it).
func (f *falkorSnapshot) groups(ctx context.Context, want func(string) bool) ([]string, error) {
	names, err := f.client.Do(ctx, "GRAPH.LIST").StringSlice()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, name := range names {
		if want != nil && !want(groupOf(name)) {
			continue
		}
		held, err := listGroups(ctx, f.query(name))
		if err != nil {
			return nil, fmt.Errorf("graph %s: %w", name, err)
		}
		for _, id := range held {
			if cypher.GraphName(id) != name {
				return nil, fmt.Errorf("graph %s holds nodes of group %q, which Graphiti's FalkorDriver and backfill keep in graph %s: "+
					"not a graph per group (read one group with --group %s)", name, id, cypher.GraphName(id), groupOf(name))
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// query runs read queries in graph (GRAPH.RO_QUERY, parameters as the CYPHER prefix) and hands
// fn each row as a record; a graph that does not exist reads as empty.
func (f *falkorSnapshot) query(graph string) queryFunc {
	return func(ctx context.Context, text string, params map[string]any, fn func(*neo4j.Record) error) error {
		q, err := cypher.FalkorQuery(text, params)
		if err != nil {
			return err
		}
		res, err := f.client.Do(ctx, "GRAPH.RO_QUERY", graph, q, "--compact").Result()
		if cypher.MissingGraph(err) {
			return nil
		}
		if err != nil {
			return err
		}
		cols, rows, err := cypher.FalkorReply(res)
		if err != nil {
			return fmt.Errorf("reading the answer of graph %s: %w", graph, err)
		}
		for _, row := range rows {
			if err := fn(&neo4j.Record{Keys: cols, Values: row}); err != nil {
				return err
			}
		}
		return nil
	}
}
