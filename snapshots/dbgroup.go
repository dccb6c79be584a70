package snapshots

import (
	"context"
	"fmt"
	"slices"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/graph"
)

// Kinds of graph a Snapshot reads (Snapshot.Kind), for messages.
const (
	KindCheckpoint = "checkpoint"
	KindExport     = "Parquet export"
	KindNeo4j      = "Neo4j graph"
	KindMemgraph   = "Memgraph graph"
	KindBolt       = "Bolt graph" // a Bolt server that names itself neither Neo4j nor Memgraph
	KindFalkorDB   = "FalkorDB graph"
)

// queryFunc runs one read query of a graph database and hands fn each record as it arrives.
type queryFunc func(ctx context.Context, cypher string, params map[string]any, fn func(*neo4j.Record) error) error

// groupsQuery lists the group ids of the nodes Graphiti partitions.
const groupsQuery = `CALL { MATCH (n:Episodic) RETURN DISTINCT n.group_id AS g
  UNION MATCH (n:Entity) RETURN DISTINCT n.group_id AS g
  UNION MATCH (n:Community) RETURN DISTINCT n.group_id AS g }
WITH g WHERE g IS NOT NULL RETURN g ORDER BY g`

// listGroups runs groupsQuery: the group ids in ascending order.
func listGroups(ctx context.Context, q queryFunc) ([]string, error) {
	var ids []string
	err := q(ctx, groupsQuery, nil, func(r *neo4j.Record) error {
		id, ok := r.Values[0].(string)
		if !ok {
			return fmt.Errorf("a group_id is %T, want a string", r.Values[0])
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}

// The queries of one group, each in the sinks.Source order (see the package doc).
const (
	episodesQuery = `MATCH (e:Episodic {group_id: $g})
RETURN e.uuid, e.name, e.source, e.source_description, e.content, e.valid_at, e.created_at, e.record_key, e.seq
ORDER BY e.valid_at, e.seq, e.created_at, e.uuid`
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

// readGroup reads one group of a graph database in the Graphiti schema with a query per kind.
func readGroup(ctx context.Context, id string, q queryFunc) (*Group, error) {
	g := &Group{ID: id}
	p := map[string]any{"g": id}
	steps := []struct {
		what, cypher string
		row          func(*rowReader)
	}{
		{"Episodic", episodesQuery, func(r *rowReader) {
			e := graph.Episode{UUID: r.str(0), GroupID: id, Name: r.str(1), Source: r.str(2), SourceDescription: r.str(3),
				Content: r.str(4), ReferenceTime: r.time(5), IngestedAt: r.time(6), Seq: r.optInt(8, -1)}
			// Graphiti keeps no record key: the episode's name stands for it (name the episodes
			// by their record keys when adding them for an eval).
			if e.RecordKey = r.optStr(7, ""); e.RecordKey == "" {
				e.RecordKey = e.Name
				g.NamedKeys++
			}
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
			c := graph.Community{UUID: r.str(0), GroupID: id, Name: r.str(1), Summary: r.str(2), CreatedAt: r.time(3),
				NameEmbedding: r.vector(4), Members: r.strs(5)}
			slices.Sort(c.Members)
			g.Communities = append(g.Communities, c)
		}},
	}
	for _, s := range steps {
		err := q(ctx, s.cypher, p, func(rec *neo4j.Record) error {
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
	orderEpisodes(g.Episodes)
	fillReferenceTimes(g)
	return g, nil
}

// orderEpisodes puts episodes in reference time order, keeping the query's order (seq,
// created_at, uuid) among equal times: a database may order its time values by type or as text
// (FalkorDB's are strings) rather than as instants. An episode without a seq property gets its
// position.
func orderEpisodes(eps []graph.Episode) {
	slices.SortStableFunc(eps, func(a, b graph.Episode) int { return a.ReferenceTime.Compare(b.ReferenceTime) })
	for i := range eps {
		if eps[i].Seq < 0 {
			eps[i].Seq = int64(i)
		}
	}
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
