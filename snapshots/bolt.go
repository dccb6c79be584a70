package snapshots

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/checkpoints"
)

// BoltOptions say which graph OpenBolt reads.
type BoltOptions struct {
	// URI is a Bolt URI (bolt://, bolt+s://, bolt+ssc://, neo4j://, neo4j+s://, neo4j+ssc://)
	// without credentials.
	URI string
	// User and Password authenticate (both empty: no authentication).
	User, Password string
	// Database is the database to read; "" is the server's default.
	Database string
}

// IsBoltURI reports whether s is a Bolt URI, which Open reads with OpenBolt.
func IsBoltURI(s string) bool {
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	switch scheme {
	case "bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc":
		return true
	}
	return false
}

// boltSnapshot reads a graph that Graphiti (or backfill's Bolt sink) wrote into Neo4j or Memgraph.
type boltSnapshot struct {
	drv      neo4j.DriverWithContext
	uri      string
	database string
	kind     string // KindNeo4j, KindMemgraph or KindBolt, from the server's agent
}

// OpenBolt connects to a Neo4j (or Memgraph) server and reads the graph in its database
// read-only (every query runs in a read transaction), a group at a time. It checks that the
// server answers and names the graph after the server's agent string.
func OpenBolt(ctx context.Context, o BoltOptions) (Snapshot, error) {
	u, err := url.Parse(o.URI)
	if err != nil || !IsBoltURI(o.URI) {
		return nil, fmt.Errorf("opening graph %s: not a Bolt URI (bolt://HOST:PORT or neo4j://HOST:PORT)", withoutUser(o.URI))
	}
	if u.User != nil {
		return nil, fmt.Errorf("opening graph %s://%s: credentials in the URI; give them in the environment instead", u.Scheme, u.Host)
	}
	auth := neo4j.NoAuth()
	if o.User != "" || o.Password != "" {
		auth = neo4j.BasicAuth(o.User, o.Password, "")
	}
	drv, err := neo4j.NewDriverWithContext(o.URI, auth, func(c *neo4j.Config) { c.UserAgent = "backfill" })
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", o.URI, err)
	}
	info, err := drv.GetServerInfo(ctx)
	if err != nil {
		drv.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("opening graph %s: %w", o.URI, err)
	}
	return &boltSnapshot{drv: drv, uri: o.URI, database: o.Database, kind: boltKind(info.Agent())}, nil
}

// boltKind names the server by its Bolt agent: Memgraph's says "… compatible graph database
// server - Memgraph" after a Neo4j version, Neo4j's is "Neo4j/VERSION".
func boltKind(agent string) string {
	a := strings.ToLower(agent)
	switch {
	case strings.Contains(a, "memgraph"):
		return KindMemgraph
	case strings.HasPrefix(a, "neo4j/"):
		return KindNeo4j
	}
	return KindBolt
}

func (b *boltSnapshot) HasVersions() bool { return false }

func (b *boltSnapshot) Kind() string { return b.kind }

func (b *boltSnapshot) Describe() string {
	if b.database != "" {
		return b.kind + " " + b.uri + " database " + b.database
	}
	return b.kind + " " + b.uri
}

func (b *boltSnapshot) Runs(context.Context) ([]checkpoints.Run, error) { return nil, nil }

func (b *boltSnapshot) Close() error { return b.drv.Close(context.Background()) }

func (b *boltSnapshot) Groups(ctx context.Context, want func(string) bool) iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		ids, err := listGroups(ctx, b.query)
		if err != nil {
			yield(nil, b.wrap("listing groups", err))
			return
		}
		for _, id := range ids {
			if want != nil && !want(id) {
				continue
			}
			g, err := readGroup(ctx, id, b.query)
			if err != nil {
				yield(nil, b.wrap("reading group "+id, err))
				return
			}
			if !yield(g, nil) {
				return
			}
		}
	}
}

func (b *boltSnapshot) wrap(what string, err error) error {
	return fmt.Errorf("%s of %s: %w", what, b.Describe(), err)
}

// query runs one read query in a read transaction and hands fn each record as it streams in.
func (b *boltSnapshot) query(ctx context.Context, cypher string, params map[string]any, fn func(*neo4j.Record) error) error {
	sess := b.drv.NewSession(ctx, neo4j.SessionConfig{AccessMode: neo4j.AccessModeRead, DatabaseName: b.database})
	defer sess.Close(context.WithoutCancel(ctx))
	_, err := sess.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, cypher, params)
		if err != nil {
			return nil, err
		}
		for res.Next(ctx) {
			if err := fn(res.Record()); err != nil {
				return nil, err // not a driver error: the transaction is not retried
			}
		}
		return nil, res.Err()
	})
	return err
}
