package cypher

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/golden"
)

// goldenFile compares got with testdata file name, or rewrites it under -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

// renderAll lists every statement this package builds for dialect d, one per line.
func renderAll(t *testing.T, d Dialect) string {
	t.Helper()
	var b strings.Builder
	section := func(title string, sts []Statement) {
		fmt.Fprintf(&b, "# %s\n", title)
		for _, s := range sts {
			mode := "tx  "
			switch {
			case s.AutoCommit:
				mode = "auto"
			case s.Together != "":
				mode = "tx+" + s.Together[:1]
			}
			fmt.Fprintf(&b, "%s %s\n", mode, s.Cypher)
			if s.Constraint != "" {
				fmt.Fprintf(&b, "     constraint %s\n", s.Constraint)
			}
			if s.Replaces != "" {
				fmt.Fprintf(&b, "     blocked by an index: unless %s, %s\n", s.Duplicates, s.Replaces)
			}
			if s.Fallback != "" {
				fmt.Fprintf(&b, "     or else %s\n", s.Fallback)
			}
		}
	}
	section("PreLoad dims=1024", PreLoad(d, SchemaOptions{VectorDims: 1024}))
	section("BulkBegin", BulkBegin(d))
	section("BulkEnd", BulkEnd(d))
	section("PostLoad dims=1024 capacity=5000", PostLoad(d, SchemaOptions{VectorDims: 1024, VectorCapacity: 5000}))
	section("PreLoad dims=1024 bulk", PreLoad(d, SchemaOptions{VectorDims: 1024, Bulk: true}))
	section("PostLoad dims=1024 capacity=5000 bulk", PostLoad(d, SchemaOptions{VectorDims: 1024, VectorCapacity: 5000, Bulk: true}))
	for _, m := range []IndexMode{IndexesGraphiti, IndexesBackground} {
		section("PreLoad dims=1024 "+string(m), PreLoad(d, SchemaOptions{VectorDims: 1024, Indexes: m}))
		section("PostLoad dims=1024 capacity=5000 "+string(m), PostLoad(d, SchemaOptions{VectorDims: 1024, VectorCapacity: 5000, Indexes: m}))
	}
	section("DDL dims=0", DDL(d, 0))
	b.WriteString("# batch statements\n")
	builders := []struct {
		name string
		fn   func() (string, error)
	}{
		{"episode merge", func() (string, error) { return EpisodeStatement(d, Merge) }},
		{"entity merge", func() (string, error) { return EntityStatement(d, Merge, nil) }},
		{"entity labels merge", func() (string, error) {
			return EntityStatement(d, Merge, []string{"Person", "Entity", "Agent", "Person"})
		}},
		{"community merge", func() (string, error) { return CommunityStatement(d, Merge) }},
		{"fact merge", func() (string, error) { return FactStatement(d, Merge) }},
		{"mention merge", func() (string, error) { return MentionStatement(d, Merge) }},
		{"has_member merge", func() (string, error) { return HasMemberStatement(d, Merge) }},
		{"episode create", func() (string, error) { return EpisodeStatement(d, Create) }},
		{"entity create", func() (string, error) { return EntityStatement(d, Create, nil) }},
		{"entity labels create", func() (string, error) {
			return EntityStatement(d, Create, []string{"Person", "Entity", "Agent", "Person"})
		}},
		{"community create", func() (string, error) { return CommunityStatement(d, Create) }},
		{"fact create", func() (string, error) { return FactStatement(d, Create) }},
		{"mention create", func() (string, error) { return MentionStatement(d, Create) }},
		{"has_member create", func() (string, error) { return HasMemberStatement(d, Create) }},
		{"list nodes", func() (string, error) { return ListNodes(d, LabelEntity) }},
		{"list edges", func() (string, error) { return ListEdges(d, TypeRelatesTo) }},
		{"delete nodes", func() (string, error) { return DeleteNodes(d, LabelCommunity) }},
		{"delete edges", func() (string, error) { return DeleteEdges(d, TypeHasMember) }},
		{"remove label", func() (string, error) { return RemoveLabel(d, LabelEntity, "Person") }},
		{"count nodes", func() (string, error) { return CountNodes(d, LabelEpisodic, "") }},
		{"count labelled nodes", func() (string, error) { return CountNodes(d, LabelEntity, "Person") }},
		{"count edges", func() (string, error) { return CountEdges(d, TypeMentions) }},
		{"counts", func() (string, error) {
			a, err := CountNodes(d, LabelEntity, "")
			if err != nil {
				return "", err
			}
			b, err := CountEdges(d, TypeRelatesTo)
			return CountsQuery([]string{a, b}), err
		}},
	}
	for _, w := range []Write{Keep, Update} {
		name := map[Write]string{Keep: "keep", Update: "update"}[w]
		builders = append(builders, []struct {
			name string
			fn   func() (string, error)
		}{
			{"episode " + name, func() (string, error) { return EpisodeStatement(d, w) }},
			{"entity labels " + name, func() (string, error) { return EntityStatement(d, w, []string{"Person"}) }},
			{"fact " + name, func() (string, error) { return FactStatement(d, w) }},
			{"mention " + name, func() (string, error) { return MentionStatement(d, w) }},
		}...)
	}
	builders = append(builders, []struct {
		name string
		fn   func() (string, error)
	}{
		{"read entity props", func() (string, error) { return ReadProps(d, LabelEntity, false) }},
		{"read fact props", func() (string, error) { return ReadProps(d, TypeRelatesTo, true) }},
		{"read mention props", func() (string, error) { return ReadProps(d, TypeMentions, true) }},
		{"count nodes by uuid", func() (string, error) { return CountNodesByUUID(d, LabelEntity, "Person", "u3") }},
		{"count edges by uuid", func() (string, error) { return CountEdgesByUUID(d, TypeMentions, "u5") }},
		{"duplicate nodes", func() (string, error) { return DuplicateNodes(d, LabelEpisodic) }},
		{"duplicate edges", func() (string, error) { return DuplicateEdges(d, TypeRelatesTo) }},
		{"node copies", func() (string, error) { return NodeCopies(d, LabelEntity) }},
		{"attached types", func() (string, error) { return AttachedTypes(d), nil }},
		{"relink out", func() (string, error) { return Relink(d, TypeMentions, true) }},
		{"relink in", func() (string, error) { return Relink(d, TypeRelatesTo, false) }},
		{"delete by id", func() (string, error) { return DeleteByID(d), nil }},
		{"delete edge copies", func() (string, error) { return DeleteEdgeCopies(d, TypeHasMember) }},
		{"take leases", func() (string, error) { return TakeLeases(d), nil }},
		{"renew leases", func() (string, error) { return RenewLeases(d), nil }},
		{"release leases", func() (string, error) { return ReleaseLeases(d), nil }},
		{"constraint states", func() (string, error) { return ConstraintStates(d), nil }},
	}...)
	for _, bl := range builders {
		s, err := bl.fn()
		if err != nil {
			t.Fatalf("%s: %v", bl.name, err)
		}
		fmt.Fprintf(&b, "%s: %s\n", bl.name, s)
	}
	return b.String()
}

func TestStatementsGolden(t *testing.T) {
	for _, d := range []Dialect{Memgraph, Neo4j, FalkorDB} {
		t.Run(string(d), func(t *testing.T) {
			goldenFile(t, "statements."+string(d)+".golden", []byte(renderAll(t, d)))
		})
	}
}

func TestDDLCoversGraphitiIndexes(t *testing.T) {
	names := []string{"entity_uuid", "episode_uuid", "community_uuid", "relation_uuid", "mention_uuid",
		"has_member_uuid", "entity_group_id", "episode_group_id", "community_group_id", "relation_group_id",
		"mention_group_id", "has_member_group_id", "name_entity_index", "created_at_entity_index",
		"created_at_episodic_index", "valid_at_episodic_index", "name_edge_index", "created_at_edge_index",
		"expired_at_edge_index", "valid_at_edge_index", "invalid_at_edge_index", "episode_content",
		"node_name_and_summary", "community_name", "edge_name_and_fact", "name_embedding_entity_index",
		"fact_embedding_edge_index", "name_embedding_community_index"}
	var all strings.Builder
	for _, s := range DDL(Neo4j, 8) {
		all.WriteString(s.Cypher + "\n")
	}
	for _, n := range names {
		// The uuid ones are uniqueness constraints of the index's name (their own index has it).
		if !strings.Contains(all.String(), "INDEX "+n+" IF NOT EXISTS") && !strings.Contains(all.String(), "CONSTRAINT "+n+" IF NOT EXISTS") {
			t.Errorf("neo4j DDL lacks index %s", n)
		}
	}
	// Memgraph: one statement per index, every one auto-commit, none with a trailing semicolon;
	// the uuid constraints and the lease constraint.
	mg := DDL(Memgraph, 8)
	if len(mg) != len(names)+len(uniqueLabels)+1 {
		t.Errorf("memgraph DDL has %d statements, want %d", len(mg), len(names)+len(uniqueLabels)+1)
	}
	for _, s := range mg {
		if !s.AutoCommit || strings.HasSuffix(s.Cypher, ";") {
			t.Errorf("bad memgraph statement %+v", s)
		}
	}
	if DDL("oracle", 8) != nil || PostLoad("x", SchemaOptions{}) != nil || BulkBegin(Neo4j) != nil {
		t.Errorf("unexpected statements for a non-memgraph dialect")
	}
	if n := len(DDL(Memgraph, 0)); n != len(mg)-len(vectorIndexes) {
		t.Errorf("DDL without vectors has %d statements", n)
	}
}

func TestValidIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Entity", true}, {"RELATES_TO", true}, {"_x9", true}, {"a", true},
		{"", false}, {"9lives", false}, {"Bad Label", false}, {"a-b", false}, {"x`y", false},
		{"Person:Admin", false}, {"Ünïcode", false}, {"n) DETACH DELETE (m", false},
	}
	for _, tc := range tests {
		if got := ValidIdentifier(tc.in); got != tc.want {
			t.Errorf("ValidIdentifier(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   func() (string, error)
	}{
		{"unknown dialect node", func() (string, error) { return NodeStatement("sql", Merge, "Entity") }},
		{"unknown dialect edge", func() (string, error) { return EdgeStatement("", Merge, "R", "A", "B") }},
		{"bad label", func() (string, error) { return NodeStatement(Memgraph, Merge, "En tity") }},
		{"bad extra label", func() (string, error) {
			return EntityStatement(Neo4j, Create, []string{"Person", "x}) SET n.a=1 //"})
		}},
		{"bad rel type", func() (string, error) { return EdgeStatement(Neo4j, Merge, "RELATES-TO", "A", "B") }},
		{"bad endpoint label", func() (string, error) { return EdgeStatement(Memgraph, Create, "R", "A", "") }},
		{"unknown write", func() (string, error) { return NodeStatement(Neo4j, Write(7), "Entity") }},
		{"bad list label", func() (string, error) { return ListNodes(Neo4j, "En tity") }},
		{"bad removed label", func() (string, error) { return RemoveLabel(Memgraph, "Entity", "x) DETACH DELETE (n") }},
		{"unknown dialect count", func() (string, error) { return CountEdges("sql", "R") }},
	}
	for _, tc := range tests {
		if s, err := tc.fn(); err == nil {
			t.Errorf("%s: no error, got %q", tc.name, s)
		}
	}
	if _, err := ParseDialect("neo4j"); err != nil {
		t.Errorf("ParseDialect(neo4j): %v", err)
	}
}

func TestBatchStatementsStartWithRowsPrefix(t *testing.T) {
	for _, d := range []Dialect{Memgraph, Neo4j, FalkorDB} {
		for _, fn := range []func(Dialect, Write) (string, error){EpisodeStatement, CommunityStatement, FactStatement, MentionStatement, HasMemberStatement} {
			for _, w := range []Write{Merge, Create} {
				s, err := fn(d, w)
				if err != nil || !strings.HasPrefix(s, RowsPrefix) || strings.Contains(s, "$(") {
					t.Errorf("%s: %q, %v", d, s, err)
				}
			}
		}
	}
}
