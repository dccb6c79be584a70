package snapshots

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
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

// boltSnapshot reads a graph that Graphiti (or backfill's Bolt sink) wrote into Neo4j.
type boltSnapshot struct {
	drv      neo4j.DriverWithContext
	uri      string
	database string
}

// OpenBolt connects to a Neo4j server and reads the graph in its database read-only (every
// query runs in a read transaction), a group at a time. It checks that the server answers.
func OpenBolt(ctx context.Context, o BoltOptions) (Snapshot, error) {
	u, err := url.Parse(o.URI)
	if err != nil || !IsBoltURI(o.URI) {
		return nil, fmt.Errorf("opening graph %s: not a Bolt URI (bolt://HOST:PORT or neo4j://HOST:PORT)", o.URI)
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
	if err := drv.VerifyConnectivity(ctx); err != nil {
		drv.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("opening graph %s: %w", o.URI, err)
	}
	return &boltSnapshot{drv: drv, uri: o.URI, database: o.Database}, nil
}

func (b *boltSnapshot) HasVersions() bool { return false }

func (b *boltSnapshot) Describe() string {
	if b.database != "" {
		return "bolt " + b.uri + " database " + b.database
	}
	return "bolt " + b.uri
}

func (b *boltSnapshot) Runs(context.Context) ([]checkpoints.Run, error) { return nil, nil }

func (b *boltSnapshot) Close() error { return b.drv.Close(context.Background()) }

// groupsQuery lists the group ids of the nodes Graphiti partitions.
const groupsQuery = `CALL { MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g
  UNION MATCH (n:Entity) RETURN DISTINCT n.group_id AS g
  UNION MATCH (n:Community) RETURN DISTINCT n.group_id AS g }
WITH g WHERE g IS NOT NULL RETURN g ORDER BY g`

func (b *boltSnapshot) Groups(ctx context.Context, want func(string) bool) iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		var ids []string
		err := b.query(ctx, groupsQuery, nil, func(r *neo4j.Record) error {
			id, ok := r.Values[0].(string)
			if !ok {
				return fmt.Errorf("a group_id is %T, want a string", r.Values[0])
			}
			ids = append(ids, id)
			return nil
		})
		if err != nil {
			yield(nil, b.wrap("listing groups", err))
			return
		}
		for _, id := range ids {
			if want != nil && !want(id) {
				continue
			}
			g, err := b.group(ctx, id)
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

// The queries of one group, each in the sinks.Source order (see the package doc).
const (
	episodesQuery = `MATCH (e:Episodic {group_id: $g})
RETURN e.uuid, e.name, e.source, e.source_description, e.content, e.valid_at, e.created_at, e.record_key
ORDER BY e.valid_at, e.created_at, e.uuid`
	entitiesQuery = `MATCH (n:Entity {group_id: $g})
RETURN n.uuid, n.name, n.summary, labels(n), n.created_at, n.name_embedding, n {.*, name_embedding: null}
ORDER BY n.uuid`
	factsQuery = `MATCH (s:Entity)-[r:RELATES_TO {group_id: $g}]->(t:Entity)
RETURN r.uuid, s.uuid, t.uuid, r.name, r.fact, r.episodes, r.created_at, r.expired_at, r.valid_at, r.invalid_at,
  r.reference_time, r.fact_embedding
ORDER BY r.uuid`
	mentionsQuery = `MATCH (e:Episodic)-[m:MENTIONS {group_id: $g}]->(n:Entity)
RETURN m.uuid, e.uuid, n.uuid, m.created_at
ORDER BY m.uuid`
	communitiesQuery = `MATCH (c:Community {group_id: $g})
OPTIONAL MATCH (c)-[:HAS_MEMBER]->(m:Entity)
WITH c, m ORDER BY m.uuid
RETURN c.uuid, c.name, c.summary, c.created_at, c.name_embedding, collect(m.uuid)
ORDER BY c.uuid`
)

// group reads one group with a query per kind.
func (b *boltSnapshot) group(ctx context.Context, id string) (*Group, error) {
	g := &Group{ID: id}
	p := map[string]any{"g": id}
	steps := []struct {
		what, cypher string
		row          func(*rowReader)
	}{
		{"Episodic", episodesQuery, func(r *rowReader) {
			e := graph.Episode{UUID: r.str(0), GroupID: id, Name: r.str(1), Source: r.str(2), SourceDescription: r.str(3),
				Content: r.str(4), ReferenceTime: r.time(5), Seq: int64(len(g.Episodes)), IngestedAt: r.time(6)}
			// Graphiti keeps no record key: the episode's name stands for it (name the episodes
			// by their record keys when adding them for an eval).
			e.RecordKey = r.optStr(7, e.Name)
			g.Episodes = append(g.Episodes, e)
		}},
		{"Entity", entitiesQuery, func(r *rowReader) {
			e := graph.Entity{UUID: r.str(0), GroupID: id, Name: r.str(1), Summary: r.str(2), CreatedAt: r.time(4),
				NameEmbedding: r.vector(5)}
			for _, l := range r.strs(3) {
				if l != "Entity" {
					e.Labels = append(e.Labels, l)
				}
			}
			e.Attributes = r.attributes(6)
			g.Entities = append(g.Entities, e)
		}},
		{"RELATES_TO", factsQuery, func(r *rowReader) {
			g.Facts = append(g.Facts, graph.Fact{UUID: r.str(0), GroupID: id, SourceUUID: r.str(1), TargetUUID: r.str(2),
				Name: r.str(3), Fact: r.str(4), Episodes: r.strs(5), CreatedAt: r.time(6), ExpiredAt: r.optTime(7),
				ValidAt: r.optTime(8), InvalidAt: r.optTime(9), ReferenceTime: r.time(10), Embedding: r.vector(11)})
		}},
		{"MENTIONS", mentionsQuery, func(r *rowReader) {
			g.Mentions = append(g.Mentions, graph.Mention{UUID: r.str(0), GroupID: id, EpisodeUUID: r.str(1),
				EntityUUID: r.str(2), CreatedAt: r.time(3)})
		}},
		{"Community", communitiesQuery, func(r *rowReader) {
			g.Communities = append(g.Communities, graph.Community{UUID: r.str(0), GroupID: id, Name: r.str(1),
				Summary: r.str(2), CreatedAt: r.time(3), NameEmbedding: r.vector(4), Members: r.strs(5)})
		}},
	}
	for _, s := range steps {
		err := b.query(ctx, s.cypher, p, func(rec *neo4j.Record) error {
			r := &rowReader{rec: rec}
			s.row(r)
			if r.err != nil {
				return fmt.Errorf("%s %v: %w", s.what, rec.Values[0], r.err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	fillReferenceTimes(g)
	return g, nil
}

// fillReferenceTimes gives a fact without a reference_time (Graphiti writes none) its first
// episode's reference time, when that episode is in the group.
func fillReferenceTimes(g *Group) {
	at := make(map[string]int, len(g.Episodes))
	for i, e := range g.Episodes {
		at[e.UUID] = i
	}
	for i := range g.Facts {
		f := &g.Facts[i]
		if !f.ReferenceTime.IsZero() || len(f.Episodes) == 0 {
			continue
		}
		if j, ok := at[f.Episodes[0]]; ok {
			f.ReferenceTime = g.Episodes[j].ReferenceTime
		}
	}
}
