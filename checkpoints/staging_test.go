package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// TestUpsertReportsRepeatedKeys runs the same input (a record key repeated with other content,
// an identical row repeated) through three runs and a run cut short, and checks what each
// reports: only a row replacing another row of the same run counts, whatever earlier runs did.
func TestUpsertReportsRepeatedKeys(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	placed, shipped, tea := ep("r1", "g", ref, 1), ep("r1", "g", ref.Add(time.Minute), 2), ep("tea", "g", ref, 3)
	placed.Content, shipped.Content = "Order 17 was placed.", "Order 17 was shipped."
	teaAgain := tea
	teaAgain.Seq = 4 // the same row further down: same uuid and content, other position
	input := []graph.Episode{placed, tea, shipped, teaAgain}
	run := func(at time.Time, eps []graph.Episode) Staged {
		t.Helper()
		var all Staged
		for _, e := range eps { // one row per batch: a repeat must be found across batches too
			st, err := s.UpsertEpisodes(ctx, []graph.Episode{e}, at)
			if err != nil {
				t.Fatal(err)
			}
			all.Added += st.Added
			all.Replaced = append(all.Replaced, st.Replaced...)
		}
		return all
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		at       time.Time
		eps      []graph.Episode
		added    int
		replaced []string // contents of the replacing rows
	}{
		{"cut short after the first row", t0, input[:1], 1, nil},
		{"resumed", t0.Add(time.Hour), input, 1, []string{"Order 17 was shipped."}},
		{"run again", t0.Add(2 * time.Hour), input, 0, []string{"Order 17 was shipped."}},
		{"without the repeat", t0.Add(3 * time.Hour), input[1:], 0, nil},
	}
	for _, tc := range tests {
		st := run(tc.at, tc.eps)
		var got []string
		for _, e := range st.Replaced {
			got = append(got, e.Content)
		}
		if st.Added != tc.added || len(got) != len(tc.replaced) || (len(got) > 0 && got[0] != tc.replaced[0]) {
			t.Errorf("%s: added %d, replaced %q; want %d, %q", tc.name, st.Added, got, tc.added, tc.replaced)
		}
	}
	eps, err := s.GroupEpisodes(ctx, "g")
	if err != nil {
		t.Fatal(err)
	}
	var r1 *graph.Episode
	for i := range eps {
		if eps[i].UUID == "r1" {
			r1 = &eps[i]
		}
	}
	if len(eps) != 2 || r1 == nil || r1.Content != "Order 17 was shipped." || !r1.IngestedAt.Equal(t0) {
		t.Errorf("staged %+v; want the last row of the key, with the first record time", eps)
	}
}

// TestMigratesVersion1 opens a store written by schema version 1 (without the staging columns)
// and requires its episodes to survive and staging to work.
func TestMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	path := oldStore(t, "1",
		`CREATE TABLE episodes (uuid TEXT PRIMARY KEY, group_id TEXT NOT NULL, reference_time INTEGER NOT NULL,
			seq INTEGER NOT NULL, name TEXT NOT NULL, source TEXT NOT NULL, source_description TEXT NOT NULL,
			content TEXT NOT NULL, speaker TEXT NOT NULL, record_key TEXT NOT NULL, ingested_at INTEGER NOT NULL)`,
		`INSERT INTO episodes VALUES ('e1', 'g', 0, 1, 'e1', 'message', '', 'hello', '', 'k1', 0)`)
	if _, err := OpenReadOnly(ctx, path); !errors.Is(err, ErrSchemaVersion) {
		t.Errorf("OpenReadOnly on a version 1 store: %v, want ErrSchemaVersion (only Open migrates)", err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 1 store: %v", err)
	}
	defer s.Close()
	var v string
	if err := s.reader().QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil || v != schemaVersion {
		t.Errorf("schema version %q, %v; want %s", v, err, schemaVersion)
	}
	e := graph.Episode{UUID: "e1", GroupID: "g", ReferenceTime: time.Unix(0, 0).UTC(), Seq: 1, Name: "e1", Source: "message", Content: "hello again", RecordKey: "k1"}
	if st, err := s.UpsertEpisodes(ctx, []graph.Episode{e}, time.Unix(10, 0)); err != nil || st.Added != 0 || len(st.Replaced) != 0 {
		t.Fatalf("staging into the migrated store: %+v, %v", st, err)
	}
	eps, err := s.GroupEpisodes(ctx, "g")
	if err != nil || len(eps) != 1 || eps[0].Content != "hello again" {
		t.Errorf("episodes %+v, %v", eps, err)
	}
	if clash, err := s.ClaimGroups(ctx, map[string]string{"g": "g"}); err != nil || len(clash) != 0 {
		t.Errorf("claiming a group in the migrated store: %v, %v", clash, err)
	}
}

// oldStore writes a store of schema version with the statements stmts (its tables and rows as
// that version made them) and returns its path.
func oldStore(t *testing.T, version string, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "v"+version+".db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts = append([]string{`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO meta VALUES ('schema_version', '` + version + `')`}, stmts...)
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return path
}
