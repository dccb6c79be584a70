package cypher

import (
	"fmt"
	"strings"
)

// The statements below keep the loaded groups equal to the source after a load: they list what
// the database holds for a set of groups ($groups, a list of group ids), delete what the source
// no longer has ($uuids, a list of uuids), remove stale labels and count what is left. They read
// the same in both dialects and go through the uuid and group_id indexes (relationships: see
// EdgeLookups).

// ListNodes lists uuid and labels of the label nodes of $groups.
func ListNodes(d Dialect, label string) (string, error) {
	return build(d, "UNWIND $groups AS g MATCH (n:%s {group_id: g}) RETURN n.uuid AS uuid, labels(n) AS labels", label)
}

// ListEdges lists the uuid of the relType relationships of $groups.
func ListEdges(d Dialect, relType string) (string, error) {
	return build(d, "UNWIND $groups AS g MATCH ()-[r:%s {group_id: g}]->() RETURN r.uuid AS uuid", relType)
}

// DeleteNodes deletes the label nodes whose uuid is in $uuids, with their relationships.
func DeleteNodes(d Dialect, label string) (string, error) {
	return build(d, "UNWIND $uuids AS id MATCH (n:%s {uuid: id}) DETACH DELETE n", label)
}

// DeleteEdges deletes the relType relationships whose uuid is in $uuids.
func DeleteEdges(d Dialect, relType string) (string, error) {
	return build(d, "UNWIND $uuids AS id MATCH ()-[r:%s {uuid: id}]->() DELETE r", relType)
}

// RemoveLabel removes label from the base nodes whose uuid is in $uuids.
func RemoveLabel(d Dialect, base, label string) (string, error) {
	return build(d, "UNWIND $uuids AS id MATCH (n:%s {uuid: id}) REMOVE n:%s", base, label)
}

// CountNodes counts the nodes of $groups that carry base and, when label is not empty, label.
func CountNodes(d Dialect, base, label string) (string, error) {
	if label == "" {
		return build(d, "UNWIND $groups AS g MATCH (n:%s {group_id: g}) RETURN count(n) AS n", base)
	}
	return build(d, "UNWIND $groups AS g MATCH (n:%s:%s {group_id: g}) RETURN count(n) AS n", base, label)
}

// CountsQuery joins count statements (CountNodes, CountEdges) into one query with UNION ALL:
// one round trip instead of one per statement. Each row is (n, i): the count of statement i.
// A statement whose pattern matches nothing may return no row (i is a grouping key); its
// count is 0.
func CountsQuery(counts []string) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = fmt.Sprintf("%s, %d AS i", c, i)
	}
	return strings.Join(parts, " UNION ALL ")
}

// edgeSources are the source labels of the relationship types.
var edgeSources = map[string]string{TypeRelatesTo: LabelEntity, TypeMentions: LabelEpisodic, TypeHasMember: LabelCommunity}

// CountEdges counts the relType relationships of $groups, from their source nodes of the same
// group (through the node group_id index: a load of new groups creates no relationship index
// before its end).
func CountEdges(d Dialect, relType string) (string, error) {
	src, ok := edgeSources[relType]
	if !ok {
		return "", fmt.Errorf("building statement: unknown relationship type %q", relType)
	}
	return build(d, "UNWIND $groups AS g MATCH (:%s {group_id: g})-[r:%s]->() WHERE r.group_id = g RETURN count(r) AS n", src, relType)
}

// build checks the dialect and the identifiers, then formats the statement.
func build(d Dialect, format string, ids ...string) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building statement: %w", err)
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		if !ValidIdentifier(id) {
			return "", fmt.Errorf("building statement: invalid identifier %q", id)
		}
		args[i] = id
	}
	return fmt.Sprintf(format, args...), nil
}

// HeldGroups returns the groups of $groups that hold an Episodic, Entity or Community node. A
// group without any is new to the database: the loader writes it with CREATE.
func HeldGroups(d Dialect) (string, error) {
	var parts []string
	for _, l := range []string{LabelEpisodic, LabelEntity, LabelCommunity} {
		s, err := build(d, "UNWIND $groups AS g MATCH (n:%s {group_id: g}) RETURN DISTINCT g", l)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " UNION "), nil
}
