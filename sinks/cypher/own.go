package cypher

import "fmt"

// The statements below serve a load into a graph other writers share (the loader's ownership
// rule, sinks/graphdb): read the properties of elements about to be updated, count exactly the
// elements written, and find and repair uuids written twice (by a load of an older version, or
// two loads at once into a database without uniqueness constraints).

// ReadProps reads the properties of the label nodes (edge false) or relType relationships (edge
// true) whose uuid is in $uuids, without the embedding: each row is (uuid, properties), the
// properties as a map (Memgraph: properties()) or as a list of [key, value] pairs (Neo4j and
// FalkorDB, which can leave the embedding out that way).
func ReadProps(d Dialect, label string, edge bool) (string, error) {
	pattern := "(n:%s {uuid: id})"
	if edge {
		pattern = "()-[n:%s {uuid: id}]->()"
	}
	props := "[k IN keys(n) | [k, n[k]]]"
	if prop, ok := embeddingProps[label]; ok {
		props = "[k IN keys(n) WHERE k <> '" + prop + "' | [k, n[k]]]"
	}
	if d == Memgraph {
		props = "properties(n)"
	}
	return build(d, "UNWIND $uuids AS id MATCH "+pattern+" RETURN n.uuid AS uuid, "+props+" AS props", label)
}

// CountNodesByUUID counts the nodes that carry base (and label, when not empty) whose uuid is in
// the list parameter param: exactly the nodes a load wrote, whatever else the groups hold.
func CountNodesByUUID(d Dialect, base, label, param string) (string, error) {
	if label == "" {
		return build(d, "UNWIND $"+param+" AS id MATCH (n:%s {uuid: id}) RETURN count(n) AS n", base)
	}
	return build(d, "UNWIND $"+param+" AS id MATCH (n:%s:%s {uuid: id}) RETURN count(n) AS n", base, label)
}

// CountEdgesByUUID counts the relType relationships whose uuid is in the list parameter param
// (through the relationship uuid index, EdgeLookups).
func CountEdgesByUUID(d Dialect, relType, param string) (string, error) {
	return build(d, "UNWIND $"+param+" AS id MATCH ()-[r:%s {uuid: id}]->() RETURN count(r) AS n", relType)
}

// DuplicateNodes lists the uuids that more than one label node of $groups carries: (uuid, copies).
func DuplicateNodes(d Dialect, label string) (string, error) {
	return build(d, "UNWIND $groups AS g MATCH (n:%s {group_id: g}) WITH n.uuid AS uuid, count(n) AS c WHERE c > 1 RETURN uuid, c", label)
}

// DuplicateEdges lists the uuids that more than one relType relationship of $groups carries.
func DuplicateEdges(d Dialect, relType string) (string, error) {
	return build(d, "UNWIND $groups AS g MATCH ()-[r:%s {group_id: g}]->() WITH r.uuid AS uuid, count(r) AS c WHERE c > 1 RETURN uuid, c", relType)
}

// elementID is the expression of the database's own id of element v: elementId on Neo4j (id is
// deprecated there), id elsewhere.
func elementID(d Dialect, v string) string {
	if d == Neo4j {
		return "elementId(" + v + ")"
	}
	return "id(" + v + ")"
}

// NodeCopies lists the copies of the label nodes whose uuid is in $uuids: (uuid, element id),
// ordered by uuid and element id, so the first copy of each uuid is the one a repair keeps.
func NodeCopies(d Dialect, label string) (string, error) {
	id := elementID(d, "n")
	return build(d, "UNWIND $uuids AS id MATCH (n:%s {uuid: id}) RETURN id, "+id+" AS eid ORDER BY id, eid", label)
}

// AttachedTypes lists the types of the relationships of the nodes whose element ids are in $ids.
func AttachedTypes(d Dialect) string {
	return "UNWIND $ids AS x MATCH (n) WHERE " + elementID(d, "n") + " = x MATCH (n)-[r]-() RETURN DISTINCT type(r)"
}

// Relink moves the relType relationships of node copies onto the copy kept: $pairs holds maps
// {keep, dup} of element ids. Each relationship of dup (outgoing when out, else incoming) is
// deleted and created again from or to keep with the same properties (a property set through a
// vector procedure comes back as a list of floats).
func Relink(d Dialect, relType string, out bool) (string, error) {
	k, x := elementID(d, "k"), elementID(d, "d")
	match, create := "MATCH (d)-[r:%[1]s]->(o)", "CREATE (k)-[c:%[1]s]->(o)"
	if !out {
		match, create = "MATCH (o)-[r:%[1]s]->(d)", "CREATE (o)-[c:%[1]s]->(k)"
	}
	if !ValidIdentifier(relType) {
		return "", fmt.Errorf("building statement: invalid identifier %q", relType)
	}
	if _, err := ParseDialect(string(d)); err != nil {
		return "", fmt.Errorf("building statement: %w", err)
	}
	return fmt.Sprintf("UNWIND $pairs AS p MATCH (k) WHERE "+k+" = p.keep MATCH (d) WHERE "+x+" = p.dup "+match+
		" WITH k, o, r, properties(r) AS props DELETE r WITH k, o, props "+create+" SET c = props", relType), nil
}

// DeleteByID deletes the nodes whose element ids are in $ids, with what is left of their
// relationships.
func DeleteByID(d Dialect) string {
	return "UNWIND $ids AS x MATCH (n) WHERE " + elementID(d, "n") + " = x DETACH DELETE n"
}

// DeleteEdgeCopies deletes the copies of each relType relationship whose uuid is in $uuids that
// join the same two nodes as another copy, all but the first by element id: copies of one
// relationship between different nodes stay (the count verification reports them).
func DeleteEdgeCopies(d Dialect, relType string) (string, error) {
	id := elementID(d, "r")
	return build(d, "UNWIND $uuids AS id MATCH (a)-[r:%s {uuid: id}]->(b) WITH id, a, b, r ORDER BY "+id+
		" WITH id, a, b, collect(r) AS rs UNWIND rs[1..] AS x DELETE x", relType)
}
