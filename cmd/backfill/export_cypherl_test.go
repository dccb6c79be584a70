package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportCypherl runs the demo (offline provider) and exports it as CYPHERL in both dialects.
func TestExportCypherl(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	ctx := context.Background()
	ck := filepath.Join(dir, "demo.db")
	if code, _ := backfill(ctx, "run", "jobs/examples/demo.yaml", "--checkpoint", ck); code != exitOK {
		t.Fatalf("run: exit %d", code)
	}
	export := func(out string, extra ...string) (int, string) {
		args := append([]string{"export", "jobs/examples/demo.yaml", "--checkpoint", ck, "--format", "cypherl", "--out", out}, extra...)
		code, _ := backfill(ctx, args...)
		b, _ := os.ReadFile(filepath.Join(out, CypherlFile))
		return code, string(b)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string
		wantNot  []string
		identity bool
	}{
		{"memgraph default", nil, exitOK,
			[]string{"CREATE INDEX ON :Entity(uuid);", "CREATE TEXT EDGE INDEX edge_name_and_fact", `"dimension": 256`, "UNWIND [{"},
			[]string{"STORAGE MODE", "FULLTEXT"}, true},
		{"memgraph analytical", []string{"--analytical"}, exitOK,
			[]string{"STORAGE MODE IN_MEMORY_ANALYTICAL;", "CREATE SNAPSHOT;"}, nil, false},
		{"neo4j", []string{"--dialect", "neo4j"}, exitOK,
			[]string{"CREATE FULLTEXT INDEX edge_name_and_fact IF NOT EXISTS", "CALL db.awaitIndex(name, 300);"}, []string{"CREATE TEXT", "STORAGE MODE"}, false},
		{"neo4j from the job", []string{"--set", "sink.kind=neo4j"}, exitOK, []string{"FULLTEXT"}, nil, false},
		{"falkordb", []string{"--dialect", "falkordb"}, exitOK,
			[]string{`GRAPH.QUERY "alice" "CREATE INDEX FOR (n:Entity) ON (n.uuid)"`, `GRAPH.QUERY "alice" "CREATE FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.name, e.fact, e.group_id)"`,
				`vecf32(row.embedding)`, `GRAPH.QUERY "shop" "UNWIND [{`},
			[]string{"datetime(", ";\n", "CREATE TEXT"}, false},
		{"falkordb from the job", []string{"--set", "sink.kind=falkordb"}, exitOK, []string{"GRAPH.QUERY"}, nil, false},
		{"analytical falkordb", []string{"--dialect", "falkordb", "--analytical"}, exitFailed, nil, nil, false},
		{"analytical neo4j", []string{"--dialect", "neo4j", "--analytical"}, exitFailed, nil, nil, false},
		{"unknown dialect", []string{"--dialect", "oracle"}, exitFailed, nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x")
			code, text := export(out, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
			if code != exitOK {
				if text != "" {
					t.Errorf("a failed export left a script")
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("script lacks %q", w)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("script has %q", w)
				}
			}
			for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
				if strings.Contains(strings.Join(tc.args, " "), "falkordb") {
					if !strings.HasPrefix(l, "GRAPH.QUERY \"") && !strings.HasPrefix(l, "GRAPH.CONSTRAINT \"") || !strings.HasSuffix(l, "\"") {
						t.Fatalf("line %d is not a GRAPH.QUERY or GRAPH.CONSTRAINT command: %.100s", i+1, l)
					}
					continue
				}
				if !strings.HasSuffix(l, ";") || strings.Count(l, ";") != 1 {
					t.Fatalf("line %d is not one statement: %.100s", i+1, l)
				}
			}
			if tc.identity {
				if _, again := export(filepath.Join(t.TempDir(), "y"), tc.args...); !bytes.Equal([]byte(again), []byte(text)) {
					t.Errorf("two exports differ")
				}
			}
		})
	}
}
