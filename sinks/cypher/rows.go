package cypher

import (
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// Row is one element of the $rows list of a batch statement.
type Row = map[string]any

// Keys of a row.
const (
	KeyUUID   = "uuid"
	KeySource = "source"
	KeyTarget = "target"
	KeyProps  = "props"
	// KeyEmbedding holds the embedding of entity, community and fact rows, outside props: the
	// statements set it with their dialect's vector call (see NodeStatement).
	KeyEmbedding = "embedding"
)

// entityProps are the Entity properties custom attributes may not overwrite.
var entityProps = []string{"uuid", "name", "group_id", "summary", "created_at", "name_embedding", "labels"}

// EntityProperty reports whether name is one of an Entity node's own properties, which an
// ontology attribute may not replace.
func EntityProperty(name string) bool { return slices.Contains(entityProps, name) }

// rowKeys are the properties the rows of each label and type carry in row.props (an entity's
// custom attributes aside; embeddings travel outside props).
var rowKeys = map[string][]string{
	LabelEpisodic: {"uuid", "name", "group_id", "source", "source_description", "content", "entity_edges", "created_at", "valid_at",
		"record_key", "seq"},
	LabelEntity:    {"uuid", "name", "group_id", "summary", "labels", "created_at"},
	LabelCommunity: {"uuid", "name", "group_id", "summary", "created_at"},
	TypeRelatesTo: {"uuid", "group_id", "name", "fact", "episodes", "source_node_uuid", "target_node_uuid",
		"created_at", "expired_at", "valid_at", "invalid_at", "reference_time"},
	TypeMentions:  {"uuid", "group_id", "created_at"},
	TypeHasMember: {"uuid", "group_id", "created_at"},
}

// RowKeys lists the properties a row of label or type kind may carry in props, an entity's
// custom attributes aside (those are the other keys of an Entity row).
func RowKeys(kind string) []string { return rowKeys[kind] }

// EmbeddingProperty names the property that holds the embedding of label or type kind ("" for
// kinds without one).
func EmbeddingProperty(kind string) string { return embeddingProps[kind] }

// EpisodeRow is the Episodic row of e; entityEdges are the fact uuids of sinks.EntityEdges.
// Besides Graphiti's properties it carries the episode's record key (record_key, absent when
// empty) and its position in its source (seq), which the readers of a loaded graph
// (snapshots) need to find gold and benchmark episodes and to order a group's episodes as the
// store does; graphiti-core 0.31.2 reads an Episodic node by named properties only, so it
// ignores both.
func EpisodeRow(e graph.Episode, entityEdges []string) Row {
	p := Row{
		"uuid":               e.UUID,
		"name":               e.Name,
		"group_id":           e.GroupID,
		"source":             e.Source,
		"source_description": e.SourceDescription,
		"content":            sinks.EpisodeContent(e),
		"entity_edges":       append([]string{}, entityEdges...),
		"seq":                e.Seq,
	}
	if e.RecordKey != "" {
		p["record_key"] = e.RecordKey
	}
	putTime(p, "created_at", sinks.EpisodeCreatedAt(e))
	putTime(p, "valid_at", e.ReferenceTime)
	return nodeRow(e.UUID, p)
}

// EntityLabels are the labels of e's node besides Entity: sorted, de-duplicated.
func EntityLabels(e graph.Entity) []string { return sinks.EntityLabels(e) }

// EntityRow is the Entity row of e. Its labels property lists "Entity" then EntityLabels(e).
func EntityRow(e graph.Entity) Row {
	p := Row{}
	putAttributes(p, e.Attributes, entityProps)
	p["uuid"] = e.UUID
	p["name"] = e.Name
	p["group_id"] = e.GroupID
	p["summary"] = e.Summary
	p["labels"] = append([]string{LabelEntity}, EntityLabels(e)...)
	putTime(p, "created_at", e.CreatedAt)
	return withEmbedding(nodeRow(e.UUID, p), e.NameEmbedding)
}

// CommunityRow is the Community row of c.
func CommunityRow(c graph.Community) Row {
	p := Row{"uuid": c.UUID, "name": c.Name, "group_id": c.GroupID, "summary": c.Summary}
	putTime(p, "created_at", c.CreatedAt)
	return withEmbedding(nodeRow(c.UUID, p), c.NameEmbedding)
}

// FactRow is the RELATES_TO row of f.
func FactRow(f graph.Fact) Row {
	p := Row{
		"uuid":             f.UUID,
		"group_id":         f.GroupID,
		"name":             f.Name,
		"fact":             f.Fact,
		"episodes":         append([]string{}, f.Episodes...),
		"source_node_uuid": f.SourceUUID,
		"target_node_uuid": f.TargetUUID,
	}
	putTime(p, "created_at", f.CreatedAt)
	putTimePtr(p, "expired_at", f.ExpiredAt)
	putTimePtr(p, "valid_at", f.ValidAt)
	putTimePtr(p, "invalid_at", f.InvalidAt)
	putTime(p, "reference_time", f.ReferenceTime)
	return withEmbedding(edgeRow(f.UUID, f.SourceUUID, f.TargetUUID, p), f.Embedding)
}

// MentionRow is the MENTIONS row of m (episode → entity).
func MentionRow(m graph.Mention) Row {
	p := Row{"uuid": m.UUID, "group_id": m.GroupID}
	putTime(p, "created_at", m.CreatedAt)
	return edgeRow(m.UUID, m.EpisodeUUID, m.EntityUUID, p)
}

// HasMemberRows are the HAS_MEMBER rows of c, one per member in sorted member order; each edge
// has the community's created_at.
func HasMemberRows(c graph.Community) []Row {
	members := slices.Clone(c.Members)
	slices.Sort(members)
	members = slices.Compact(members)
	out := make([]Row, 0, len(members))
	for _, m := range members {
		id := graph.HasMemberID(c.UUID, m)
		p := Row{"uuid": id, "group_id": c.GroupID}
		putTime(p, "created_at", c.CreatedAt)
		out = append(out, edgeRow(id, c.UUID, m, p))
	}
	return out
}

func nodeRow(id string, props Row) Row { return Row{KeyUUID: id, KeyProps: props} }

func edgeRow(id, source, target string, props Row) Row {
	return Row{KeyUUID: id, KeySource: source, KeyTarget: target, KeyProps: props}
}

// putTime sets p[k] to t in UTC, or leaves it absent when t is zero.
func putTime(p Row, k string, t time.Time) {
	if !t.IsZero() {
		p[k] = t.UTC()
	}
}

func putTimePtr(p Row, k string, t *time.Time) {
	if t != nil {
		putTime(p, k, *t)
	}
}

// withEmbedding sets row[KeyEmbedding] to v as []float64, or leaves it absent when v is empty.
func withEmbedding(row Row, v []float32) Row {
	if len(v) == 0 {
		return row
	}
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	row[KeyEmbedding] = f
	return row
}
