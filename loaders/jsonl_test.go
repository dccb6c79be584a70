package loaders

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
)

func TestJSONLHappyPath(t *testing.T) {
	rs := readAll(t, Spec{Path: "testdata/happy.jsonl", Timezone: mustLoc(t, "Asia/Seoul")})
	if len(rs) != 8 {
		t.Fatalf("got %d results, want 8 (blank lines skipped)", len(rs))
	}
	for _, r := range rs {
		if r.Bad != nil {
			t.Fatalf("unexpected bad row: %+v", r.Bad)
		}
	}
	// Spot checks of the rules; the golden file pins every field.
	first := rs[0].Episode
	if first.UUID != graph.EpisodeID("acct-1", "msg-1") || first.Seq != 1 || first.Source != graph.SourceMessage {
		t.Errorf("first episode = %+v", first)
	}
	second := rs[1].Episode
	if second.RecordKey != graph.ContentKey("acct-1", second.ReferenceTime, "Bob", "Congrats on the move!") {
		t.Errorf("record key without a mapped key should be the content key, got %q", second.RecordKey)
	}
	if rs[3].OriginalGroup != "user@example.com" || !ValidGroupID(rs[3].Episode.GroupID) {
		t.Errorf("group mapping: %q -> %q", rs[3].OriginalGroup, rs[3].Episode.GroupID)
	}
	if got := rs[3].Episode.Content; got != `{"note":"<fragile>","price":19.90,"qty":2,"sku":"A-1"}` {
		t.Errorf("object body not canonical: %s", got)
	}
	golden(t, "happy.jsonl.golden", render(t, rs))
}

func TestJSONLMapping(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "in.ndjson", `{"meta":{"user":"u1"},"ts":"1700000000000","who":"Dana","msg":{"text":"hi"},"id":7}
{"meta.user":"u2","ts":"1700000000","msg":{"text":"flat key wins"},"id":8}
`)
	rs := readAll(t, Spec{Path: p, Mapping: Mapping{Group: "meta.user", ReferenceTime: "ts", Speaker: "who",
		Body: "msg.text", RecordKey: "id"}, TimeFormat: TimeEpochMS, Description: "chat export"})
	if len(rs) != 2 || rs[0].Bad != nil {
		t.Fatalf("results: %+v", rs)
	}
	e := rs[0].Episode
	want := graph.Episode{UUID: graph.EpisodeID("u1", "7"), GroupID: "u1", Name: "in.ndjson:1",
		Source: "message", SourceDescription: "chat export", Content: "hi", Speaker: "Dana",
		ReferenceTime: time.UnixMilli(1700000000000).UTC(), Seq: 1, RecordKey: "7"}
	if e != want {
		t.Errorf("episode\n got %+v\nwant %+v", e, want)
	}
	if rs[1].Bad != nil || rs[1].Episode.GroupID != "u2" || rs[1].Episode.Source != graph.SourceText {
		t.Errorf("second row: %+v %+v", rs[1].Episode, rs[1].Bad)
	}
	if got := rs[1].Episode.ReferenceTime; !got.Equal(time.UnixMilli(1700000000)) {
		t.Errorf("epoch_ms forced: got %v", got)
	}
}

func TestJSONLWholeRecordBody(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "rec.jsonl", `{"z":1,"group_id":"g","reference_time":"2024-01-01","a":{"y":[1,2],"x":"&"}}`+"\n")
	rs := readAll(t, Spec{Path: p, Mapping: Mapping{Body: "*"}})
	if len(rs) != 1 || rs[0].Bad != nil {
		t.Fatalf("results: %+v", rs)
	}
	e := rs[0].Episode
	if e.Source != graph.SourceJSON || e.Content != `{"a":{"x":"&","y":[1,2]},"group_id":"g","reference_time":"2024-01-01","z":1}` {
		t.Errorf("got source %q content %s", e.Source, e.Content)
	}
}

func TestJSONLDefaultGroupAndGzip(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("\xef\xbb\xbf" + `{"reference_time":"2024-01-01T00:00:00Z","content":"bom and gzip"}` + "\n" +
		`{"group_id":"","reference_time":"2024-01-01T00:00:00Z","content":"empty group"}` + "\n"))
	zw.Close()
	p := writeFile(t, dir, "a.jsonl.gz", buf.String())
	rs := readAll(t, Spec{Path: p, DefaultGroup: "fallback"})
	if len(rs) != 2 {
		t.Fatalf("got %d results", len(rs))
	}
	for _, r := range rs {
		if r.Bad != nil || r.Episode.GroupID != "fallback" {
			t.Errorf("result %+v %+v", r.Episode, r.Bad)
		}
	}
}

func TestJSONLBadRows(t *testing.T) {
	const ok = `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"fine"}`
	huge := `{"group_id":"g","content":"` + strings.Repeat("y", 70<<10) + `"}`
	long := `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"` + strings.Repeat("x", 200) + `"}`
	tests := []struct {
		name, line   string
		spec         Spec
		field, cause string
	}{
		{"not json", `{"group_id":`, Spec{}, "", "invalid JSON"},
		{"array line", `[1,2]`, Spec{}, "", "not a JSON object"},
		{"scalar line", `"text"`, Spec{}, "", "not a JSON object"},
		{"trailing garbage", ok + ` x`, Spec{}, "", "invalid JSON"},
		{"missing group", `{"reference_time":"2024-01-01","content":"x"}`, Spec{}, "group_id", "missing"},
		{"object group", `{"group_id":{"a":1},"reference_time":"2024-01-01","content":"x"}`, Spec{}, "group_id", "not text"},
		{"rejected group", `{"group_id":"a b","reference_time":"2024-01-01","content":"x"}`, Spec{GroupPolicy: GroupReject}, "group_id", "outside [A-Za-z0-9_-]"},
		{"missing time", `{"group_id":"g","content":"x"}`, Spec{}, "reference_time", "missing"},
		{"null time", `{"group_id":"g","reference_time":null,"content":"x"}`, Spec{}, "reference_time", "missing"},
		{"garbage time", `{"group_id":"g","reference_time":"soon","content":"x"}`, Spec{}, "reference_time", "unrecognized"},
		{"zero time", `{"group_id":"g","reference_time":"0001-01-01T00:00:00Z","content":"x"}`, Spec{}, "reference_time", "outside years"},
		{"bool time", `{"group_id":"g","reference_time":true,"content":"x"}`, Spec{}, "reference_time", "boolean"},
		{"missing body", `{"group_id":"g","reference_time":"2024-01-01"}`, Spec{}, "content", "missing"},
		{"blank body", `{"group_id":"g","reference_time":"2024-01-01","content":" \n "}`, Spec{}, "content", "empty"},
		{"number body", `{"group_id":"g","reference_time":"2024-01-01","content":5}`, Spec{}, "content", "not a number"},
		{"invalid utf8 body", `{"group_id":"g","reference_time":"2024-01-01","content":"a` + "\xff" + `b"}`, Spec{}, "content", "invalid UTF-8"},
		{"invalid utf8 speaker", `{"group_id":"g","reference_time":"2024-01-01","speaker":"` + "\xc3" + `","content":"x"}`, Spec{}, "speaker", "invalid UTF-8"},
		{"body too large", long, Spec{MaxBodyBytes: 100}, "content", "over the limit of 100"},
		{"line too long", huge, Spec{MaxBodyBytes: 4}, "", "line is over"},
		{"unknown source", `{"group_id":"g","reference_time":"2024-01-01","content":"x","source":"email"}`, Spec{}, "source", "not message, text or json"},
		{"mapped speaker field", `{"group_id":"g","reference_time":"2024-01-01","who":{"a":1},"content":"x"}`, Spec{Mapping: Mapping{Speaker: "who"}}, "who", "not text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := tt.spec
			spec.Path = writeFile(t, t.TempDir(), "in.jsonl", ok+"\n"+tt.line+"\n"+ok+"\n")
			rs := readAll(t, spec)
			if len(rs) != 3 {
				t.Fatalf("got %d results, want 3", len(rs))
			}
			if rs[0].Bad != nil || rs[2].Bad != nil || rs[2].Episode.Seq != 3 {
				t.Fatalf("valid rows around the bad one were not kept: %+v / %+v", rs[0], rs[2])
			}
			b := rs[1].Bad
			if b == nil {
				t.Fatalf("row 2 was not bad: %+v", rs[1].Episode)
			}
			if b.File != spec.Path || b.Row != 2 || b.Field != tt.field || !strings.Contains(b.Reason, tt.cause) {
				t.Errorf("bad = %+v; want field %q, reason containing %q", b, tt.field, tt.cause)
			}
			if b.Raw == "" || len(b.Raw) > MaxRawBytes || !strings.HasPrefix(tt.line, strings.ReplaceAll(b.Raw, "\uFFFD", "")[:1]) {
				t.Errorf("raw = %q", b.Raw)
			}
		})
	}
}

func TestRawIsBoundedValidUTF8(t *testing.T) {
	got := rawText(bytes.Repeat([]byte("é\xff"), 2000))
	if len(got) > MaxRawBytes || len(got) < MaxRawBytes-3 || !utf8.ValidString(got) || !strings.HasPrefix(got, "é\uFFFDé") {
		t.Errorf("rawText: len %d, valid %v, prefix %q", len(got), utf8.ValidString(got), got[:8])
	}
	if got := rawText([]byte("short")); got != "short" {
		t.Errorf("rawText(short) = %q", got)
	}
}

func TestReadFilesInOrder(t *testing.T) {
	dir := t.TempDir()
	row := `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":"%s"}` + "\n"
	writeFile(t, dir, "b.jsonl", strings.ReplaceAll(row, "%s", "b1"))
	writeFile(t, dir, "a.jsonl", strings.ReplaceAll(row, "%s", "a1")+strings.ReplaceAll(row, "%s", "a2"))
	writeFile(t, dir, "notes.txt", "ignored by the glob")
	rs := readAll(t, Spec{Path: filepath.Join(dir, "*.jsonl")})
	var got []string
	for _, r := range rs {
		got = append(got, r.Episode.Content+"@"+strings.TrimPrefix(r.Episode.Name, ""))
	}
	want := []string{"a1@a.jsonl:1", "a2@a.jsonl:2", "b1@b.jsonl:1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("order: got %v want %v", got, want)
	}
	if rs[2].Episode.Seq != 1<<32|1 {
		t.Errorf("seq of the second file's first row = %#x", rs[2].Episode.Seq)
	}
	// A directory path reads every file in it; the .txt file has no known format.
	err := Read(context.Background(), LocalFS{}, Spec{Path: dir}, func(Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("directory with an unknown extension: err = %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "a.jsonl", `{"group_id":"g","reference_time":"2024-01-01","content":"x"}`+"\n")
	noop := func(Result) error { return nil }
	ctx := context.Background()
	if err := Read(ctx, LocalFS{}, Spec{Path: filepath.Join(dir, "*.parquet")}, noop); !errors.Is(err, ErrNoFiles) {
		t.Errorf("no match: err = %v", err)
	}
	if err := Read(ctx, LocalFS{}, Spec{Path: filepath.Join(dir, "missing.jsonl")}, noop); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	if err := Read(ctx, LocalFS{}, Spec{Path: p, GroupPolicy: "drop"}, noop); err == nil {
		t.Error("invalid spec accepted")
	}
	stop := errors.New("stop")
	if err := Read(ctx, LocalFS{}, Spec{Path: p}, func(Result) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("emit error not returned: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Read(cctx, LocalFS{}, Spec{Path: p}, noop); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		spec Spec
		ok   bool
	}{
		{Spec{}, true},
		{Spec{Format: "csv"}, false},
		{Spec{GroupPolicy: "drop"}, false},
		{Spec{Source: "email"}, false},
		{Spec{MaxBodyBytes: -1}, false},
		{Spec{DefaultGroup: "not valid"}, false},
		{Spec{TimeFormat: "whenever"}, false},
		{Spec{Format: FormatParquet, Mapping: Mapping{Body: "*"}}, false},
		{Spec{Format: FormatJSONL, Mapping: Mapping{Body: "*"}, Source: "json", GroupPolicy: GroupReject}, true},
	}
	for _, tt := range tests {
		if err := tt.spec.Validate(); (err == nil) != tt.ok {
			t.Errorf("Validate(%+v) = %v, want ok=%v", tt.spec, err, tt.ok)
		}
	}
}
