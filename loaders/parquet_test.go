package loaders

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/tkgraph/backfill/graph"
)

const pyarrowFile = "testdata/pyarrow_episodes.parquet"

// TestParquetForeign reads the pyarrow-written fixture with the reference time taken from each of
// its time column types.
func TestParquetForeign(t *testing.T) {
	seoul := mustLoc(t, "Asia/Seoul")
	at := func(d, h, m, s, us int) time.Time { return time.Date(2024, 3, d, h, m, s, us*1000, time.UTC) }
	wantUTC := []time.Time{at(1, 0, 0, 0, 123456), at(1, 0, 5, 0, 0), at(2, 12, 0, 0, 0), at(3, 8, 30, 0, 0), at(4, 23, 59, 59, 0)}
	inSeoul := func(ts []time.Time) []time.Time { // the same wall clocks read as Seoul time
		out := make([]time.Time, len(ts))
		for i, v := range ts {
			out[i] = v.Add(-9 * time.Hour)
		}
		return out
	}
	days := []time.Time{at(1, 0, 0, 0, 0), at(1, 0, 0, 0, 0), at(2, 0, 0, 0, 0), at(3, 0, 0, 0, 0), at(4, 0, 0, 0, 0)}
	tests := []struct {
		column string
		loc    *time.Location
		want   []time.Time
		bad5   bool // row 5 has a null in this column
	}{
		{"ts_utc", seoul, wantUTC, true},
		{"ts_naive", nil, wantUTC, false},
		{"ts_naive", seoul, inSeoul(wantUTC), false},
		{"ts_ms", seoul, []time.Time{wantUTC[0].Truncate(time.Millisecond), wantUTC[1], wantUTC[2], wantUTC[3], wantUTC[4]}, false},
		{"day", seoul, inSeoul(days), false},
		{"ts_str", seoul, inSeoul([]time.Time{wantUTC[0].Truncate(time.Second), wantUTC[1], wantUTC[2], wantUTC[3], wantUTC[4]}), false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.column, tt.loc), func(t *testing.T) {
			rs := readAll(t, Spec{Path: pyarrowFile, Timezone: tt.loc, Mapping: Mapping{
				Group: "conv", ReferenceTime: tt.column, Speaker: "who", Body: "text", RecordKey: "msg_id"}})
			if len(rs) != 5 {
				t.Fatalf("got %d results, want 5", len(rs))
			}
			for i, r := range rs {
				row := int64(i + 1)
				switch {
				case row == 4:
					if r.Bad == nil || r.Bad.Field != "text" || r.Bad.Reason != "missing" || r.Bad.Row != 4 ||
						r.Bad.File != pyarrowFile || !strings.Contains(r.Bad.Raw, `"msg_id":104`) {
						t.Errorf("row 4: want a bad null text, got %+v", r.Bad)
					}
				case row == 5 && tt.bad5:
					if r.Bad == nil || r.Bad.Field != tt.column || r.Bad.Reason != "missing" {
						t.Errorf("row 5: want a bad null time, got %+v", r.Bad)
					}
				case r.Bad != nil:
					t.Errorf("row %d: unexpected bad %+v", row, r.Bad)
				case !r.Episode.ReferenceTime.Equal(tt.want[i]) || r.Episode.ReferenceTime.Location() != time.UTC:
					t.Errorf("row %d: time %v, want %v", row, r.Episode.ReferenceTime, tt.want[i])
				case r.Episode.Seq != row || r.Episode.RecordKey != fmt.Sprint(100+row):
					t.Errorf("row %d: seq %d key %q", row, r.Episode.Seq, r.Episode.RecordKey)
				}
			}
			if e := rs[0].Episode; e.GroupID != "c1" || e.Speaker != "Ann" || e.Content != "Hi Ben" ||
				e.Source != graph.SourceMessage || e.UUID != graph.EpisodeID("c1", "101") {
				t.Errorf("row 1 = %+v", e)
			}
			if e := rs[2].Episode; e.Speaker != "" || e.Source != graph.SourceText {
				t.Errorf("row 3 (null speaker) = %+v", e)
			}
			if r := rs[4]; r.Bad == nil && (r.Episode.GroupID != MapGroupID("c 3") || r.OriginalGroup != "c 3" || r.Episode.Content != "안녕하세요") {
				t.Errorf("row 5 = %+v", r)
			}
		})
	}
}

func TestParquetNestedColumn(t *testing.T) {
	rs := readAll(t, Spec{Path: pyarrowFile, Mapping: Mapping{Group: "meta.user", ReferenceTime: "ts_ms", Body: "text"}})
	var groups []string
	for _, r := range rs {
		if r.Bad == nil {
			groups = append(groups, r.Episode.GroupID)
		}
	}
	if strings.Join(groups, ",") != "u1,u1,u2,u3" {
		t.Errorf("groups from meta.user = %v", groups)
	}
}

func TestParquetSchemaErrors(t *testing.T) {
	dir := t.TempDir()
	corrupt := writeFile(t, dir, "corrupt.parquet", "PAR1 this is not really parquet PAR1")
	data, err := os.ReadFile(pyarrowFile)
	if err != nil {
		t.Fatal(err)
	}
	truncated := writeFile(t, dir, "truncated.parquet", string(data[:len(data)-20]))
	base := Mapping{Group: "conv", ReferenceTime: "ts_ms", Body: "text"}
	with := func(f func(*Mapping)) Mapping { m := base; f(&m); return m }
	tests := []struct {
		name    string
		path    string
		mapping Mapping
		want    string
	}{
		{"missing body", pyarrowFile, with(func(m *Mapping) { m.Body = "nope" }), `column "nope" is missing`},
		{"missing default group", pyarrowFile, with(func(m *Mapping) { m.Group = "" }), `column "group_id" is missing`},
		{"missing explicit speaker", pyarrowFile, with(func(m *Mapping) { m.Speaker = "nope" }), `column "nope" is missing`},
		{"bool time", pyarrowFile, with(func(m *Mapping) { m.ReferenceTime = "flag" }), `column "flag": unsupported type`},
		{"timestamp body", pyarrowFile, with(func(m *Mapping) { m.Body = "ts_utc" }), `column "ts_utc": unsupported type`},
		{"list group", pyarrowFile, with(func(m *Mapping) { m.Group = "tags" }), `column "tags" is not a single primitive`},
		{"struct speaker", pyarrowFile, with(func(m *Mapping) { m.Speaker = "meta" }), `column "meta" is not a single primitive`},
		{"truncated", truncated, base, "opening parquet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Read(context.Background(), LocalFS{}, Spec{Path: tt.path, Mapping: tt.mapping},
				func(Result) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("err = %v; want it to name %s and contain %q", err, tt.path, tt.want)
			}
		})
	}
	// A footer that claims more bytes than the file holds quarantines the file as a whole.
	if rs := readAll(t, Spec{Path: corrupt, Mapping: base}); len(rs) != 1 || rs[0].Bad == nil || rs[0].Bad.Row != 0 ||
		!strings.Contains(rs[0].Bad.Reason, "footer is corrupt") {
		t.Errorf("corrupt footer: %+v, want the file quarantined", rs)
	}
	// A default-named optional column that is absent is simply not read.
	rs := readAll(t, Spec{Path: pyarrowFile, Mapping: base})
	if len(rs) != 5 || rs[0].Bad != nil || rs[0].Episode.Speaker != "" {
		t.Errorf("absent optional columns: %+v", rs[0])
	}
}

// testEpisodes makes n varied episodes whose Seq and ids match what Read derives from a file
// holding them in order.
func testEpisodes(n int) []graph.Episode {
	base := time.Date(2023, 5, 20, 2, 21, 0, 0, time.UTC)
	eps := make([]graph.Episode, n)
	for i := range eps {
		row := int64(i + 1)
		group := fmt.Sprintf("g%d", i%7)
		e := graph.Episode{GroupID: group, Name: fmt.Sprintf("ep %d", row), Source: graph.SourceMessage,
			SourceDescription: "desc " + group, Content: fmt.Sprintf("turn %d says 안녕 %s", row, strings.Repeat("x", i%50)),
			Speaker: []string{"Alice", "Bob", ""}[i%3], Seq: row,
			ReferenceTime: base.Add(time.Duration(i)*1500*time.Millisecond + time.Duration(i%1000)*time.Nanosecond)}
		switch {
		case e.Speaker == "" && i%2 == 0:
			e.Source, e.Content = graph.SourceJSON, fmt.Sprintf(`{"n":%d}`, row)
		case e.Speaker == "":
			e.Source = graph.SourceText
		}
		e.RecordKey = fmt.Sprintf("key-%d", row)
		if i%5 == 0 {
			e.RecordKey = graph.ContentKey(group, e.ReferenceTime, e.Speaker, e.Content)
		}
		e.UUID = graph.EpisodeID(group, e.RecordKey)
		eps[i] = e
	}
	return eps
}

func TestEpisodeParquetRoundTrip(t *testing.T) {
	eps := testEpisodes(25_001)
	var buf bytes.Buffer
	if err := WriteEpisodesParquet(&buf, func(yield func(graph.Episode) bool) {
		for _, e := range eps {
			if !yield(e) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 3 {
		t.Errorf("row groups = %d, want 3 (10k rows each)", n)
	}
	p := filepath.Join(t.TempDir(), "episodes.parquet")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := readAll(t, Spec{Path: p})
	if len(rs) != len(eps) {
		t.Fatalf("read %d results, wrote %d", len(rs), len(eps))
	}
	for i, r := range rs {
		if r.Bad != nil {
			t.Fatalf("row %d bad: %+v", i+1, r.Bad)
		}
		if r.Episode != eps[i] {
			t.Fatalf("row %d differs:\n got %+v\nwant %+v", i+1, r.Episode, eps[i])
		}
	}
}

func TestParquetLegacyTypes(t *testing.T) {
	rs := readAll(t, Spec{Path: "testdata/pyarrow_int96.parquet"})
	if len(rs) != 2 || rs[0].Bad != nil || rs[1].Bad != nil {
		t.Fatalf("results = %+v", rs)
	}
	e := rs[0].Episode
	if !e.ReferenceTime.Equal(time.Date(2024, 3, 1, 0, 0, 0, 123456000, time.UTC)) ||
		e.RecordKey != "00010203-0405-0607-0809-0a0b0c0d0e0f" || e.Content != "first" {
		t.Errorf("int96/uuid row = %+v", e)
	}
	if got := rs[1].Episode.ReferenceTime; !got.Equal(time.Date(2024, 3, 1, 0, 5, 0, 0, time.UTC)) {
		t.Errorf("second int96 time = %v", got)
	}
}
