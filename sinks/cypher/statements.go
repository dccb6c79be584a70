package cypher

import (
	"fmt"
	"slices"
	"strings"
)

// RowsPrefix starts every batch statement: the rows come from the $rows parameter. A caller that
// writes the rows as a literal replaces it with "UNWIND [ … ] AS row ".
const RowsPrefix = "UNWIND $rows AS row "

// Labels and relationship types of the Graphiti schema.
const (
	LabelEntity    = "Entity"
	LabelEpisodic  = "Episodic"
	LabelCommunity = "Community"
	TypeRelatesTo  = "RELATES_TO"
	TypeMentions   = "MENTIONS"
	TypeHasMember  = "HAS_MEMBER"
)

// embeddingProps names the embedding property of the labels and types whose rows carry one
// (row.embedding).
var embeddingProps = map[string]string{
	LabelEntity:    "name_embedding",
	LabelCommunity: "name_embedding",
	TypeRelatesTo:  "fact_embedding",
}

// Write is how a batch statement writes its rows.
type Write int

const (
	// Merge MERGEs each row by uuid: idempotent, it updates what the database holds.
	Merge Write = iota
	// Create CREATEs each row: only for rows the database does not hold yet (a group it has no
	// node of); running it twice duplicates.
	Create
	// Keep writes a row only where the database lacks its uuid (MERGE … ON CREATE): an element
	// the loader wrote before and whose properties it has not changed since, so what another
	// writer changed on it stays. Labels and the embedding are set only on a created element.
	Keep
	// Update MERGEs by uuid and sets row.props over the element's properties (SET n += …):
	// properties the row does not name stay (another writer's), a property whose value is null
	// is removed.
	Update
)

// MarkNew is the property a Keep statement sets on the element it creates, to tell it from one
// that was there; the statement's SET n = row.props removes it again in the same statement.
const MarkNew = "_backfill_new"

// keepNew is the part of a Keep statement that marks a created element v and carries on with
// the created ones only.
func keepNew(v string) string {
	return " ON CREATE SET " + v + "." + MarkNew + " = true WITH " + v + ", row WHERE " + v + "." + MarkNew + " IS NOT NULL"
}

// NodeStatement returns the batch statement that writes nodes of label as w says (MERGE by uuid,
// CREATE, Keep, Update), sets their properties from row.props, adds extraLabels and, for labels
// with an embedding,
// sets it from row.embedding (see embeddingClause). extraLabels are sorted and de-duplicated,
// and label itself is dropped from them, so the text depends only on the label set.
func NodeStatement(d Dialect, w Write, label string, extraLabels ...string) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building node statement: %w", err)
	}
	if !ValidIdentifier(label) {
		return "", fmt.Errorf("building node statement: invalid label %q", label)
	}
	extra := NormalizeLabels(label, extraLabels)
	for _, l := range extra {
		if !ValidIdentifier(l) {
			return "", fmt.Errorf("building node statement: invalid label %q", l)
		}
	}
	var s string
	switch w {
	case Merge, Keep, Update:
		s = RowsPrefix + "MERGE (n:" + label + " {uuid: row.uuid})"
		switch w {
		case Keep:
			s += keepNew("n") + " SET n = row.props"
		case Update:
			s += " SET n += row.props"
		default:
			s += " SET n = row.props"
		}
		if len(extra) > 0 {
			s += " SET n:" + strings.Join(extra, ":")
		}
	case Create:
		s = RowsPrefix + "CREATE (n:" + strings.Join(append([]string{label}, extra...), ":") + ") SET n = row.props"
	default:
		return "", fmt.Errorf("building node statement: unknown write %d", w)
	}
	return s + embeddingClause(d, "n", label), nil
}

// EdgeStatement returns the batch statement that MATCHes the endpoints (fromLabel by row.source,
// toLabel by row.target), writes a relType relationship between them as w says (MERGE by uuid,
// CREATE, Keep, Update), sets its properties from row.props and, for types with an embedding,
// sets it from row.embedding.
func EdgeStatement(d Dialect, w Write, relType, fromLabel, toLabel string) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building edge statement: %w", err)
	}
	for _, id := range []string{relType, fromLabel, toLabel} {
		if !ValidIdentifier(id) {
			return "", fmt.Errorf("building edge statement: invalid identifier %q", id)
		}
	}
	s := RowsPrefix + "MATCH (a:" + fromLabel + " {uuid: row.source}) MATCH (b:" + toLabel + " {uuid: row.target}) "
	set := " SET r = row.props"
	switch w {
	case Merge:
		s += "MERGE (a)-[r:" + relType + " {uuid: row.uuid}]->(b)"
	case Keep:
		s += "MERGE (a)-[r:" + relType + " {uuid: row.uuid}]->(b)" + keepNew("r")
	case Update:
		s += "MERGE (a)-[r:" + relType + " {uuid: row.uuid}]->(b)"
		set = " SET r += row.props"
	case Create:
		s += "CREATE (a)-[r:" + relType + "]->(b)"
	default:
		return "", fmt.Errorf("building edge statement: unknown write %d", w)
	}
	return s + set + embeddingClause(d, "r", relType), nil
}

// embeddingClause sets the embedding of variable v (a node or relationship of label) from
// row.embedding. Neo4j stores it with db.create.setNodeVectorProperty or
// db.create.setRelationshipVectorProperty (a float32 array, as Graphiti stores embeddings; the
// procedures reject null, so rows without one skip the call); Memgraph with SET (a null removes
// the property). Empty for labels without an embedding.
func embeddingClause(d Dialect, v, label string) string {
	prop, ok := embeddingProps[label]
	if !ok {
		return ""
	}
	switch d {
	case Memgraph:
		return " SET " + v + "." + prop + " = row.embedding"
	case FalkorDB:
		return " SET " + v + "." + prop + " = vecf32(row.embedding)"
	}
	proc := "db.create.setNodeVectorProperty"
	if v == "r" {
		proc = "db.create.setRelationshipVectorProperty"
	}
	return " WITH " + v + ", row WHERE row.embedding IS NOT NULL CALL " + proc + "(" + v + ", '" + prop + "', row.embedding)"
}

// NormalizeLabels returns labels sorted, de-duplicated and without base and empty strings.
func NormalizeLabels(base string, labels []string) []string {
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		if l != "" && l != base {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// EpisodeStatement is the statement for Episodic rows (EpisodeRow).
func EpisodeStatement(d Dialect, w Write) (string, error) { return NodeStatement(d, w, LabelEpisodic) }

// EntityStatement is the statement for Entity rows whose extra labels are labels (EntityLabels).
func EntityStatement(d Dialect, w Write, labels []string) (string, error) {
	return NodeStatement(d, w, LabelEntity, labels...)
}

// CommunityStatement is the statement for Community rows (CommunityRow).
func CommunityStatement(d Dialect, w Write) (string, error) {
	return NodeStatement(d, w, LabelCommunity)
}

// FactStatement is the statement for RELATES_TO rows (FactRow).
func FactStatement(d Dialect, w Write) (string, error) {
	return EdgeStatement(d, w, TypeRelatesTo, LabelEntity, LabelEntity)
}

// MentionStatement is the statement for MENTIONS rows (MentionRow).
func MentionStatement(d Dialect, w Write) (string, error) {
	return EdgeStatement(d, w, TypeMentions, LabelEpisodic, LabelEntity)
}

// HasMemberStatement is the statement for HAS_MEMBER rows (HasMemberRows).
func HasMemberStatement(d Dialect, w Write) (string, error) {
	return EdgeStatement(d, w, TypeHasMember, LabelCommunity, LabelEntity)
}
