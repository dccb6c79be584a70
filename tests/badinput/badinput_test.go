package badinput

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// badCase is one input run through `backfill run` with the offline responder.
type badCase struct {
	name    string
	file    string // in the corpus (or, for generated inputs, in the test's temp dir)
	source  string // further lines of the sources[] entry, indented by four spaces
	extra   string // further top-level job YAML; default: limits.max_error_ratio 1
	code    int    // expected exit code: 0 clean, 3 finished with quarantined rows, 1 failed
	errText string // exit 1: a substring of the error message (which must also name the file)
	valid   []string
	bad     []qrow
	content map[string]string // episode name → exact content expected in the store
	warns   []string          // substrings of the run's log, each on some warning line
	noWarn  string            // a substring no warning line may hold
}

const tolerant = "limits:\n  max_error_ratio: 1\n"

func rt(file string, row int64, reason string) qrow { return qrow{file, row, "reference_time", reason} }

func whole(file string, row int64, reason string) qrow { return qrow{file, row, "", reason} }

// corpusCases are the committed inputs and what `backfill run` must make of them.
func corpusCases() []badCase {
	const ts, u8, bo, no = "timestamps.jsonl", "utf8.jsonl", "bodies.jsonl", "not_objects.jsonl"
	notObj := func(row int64) qrow { return whole(no, row, "not a JSON object") }
	invalid := func(file string, row int64) qrow { return whole(file, row, "invalid JSON") }
	utf := func(row int64, field string) qrow { return qrow{u8, row, field, "invalid UTF-8"} }
	return []badCase{
		{name: "timestamps", file: ts, code: 3,
			valid: names(ts, 1, 13, 14, 15, 21, 22, 24, 25, 26),
			bad: []qrow{rt(ts, 2, "unrecognized time"), rt(ts, 3, "unrecognized time"), rt(ts, 4, "outside years 1678..2261"),
				rt(ts, 5, "outside years"), rt(ts, 6, "out of range"), rt(ts, 7, "outside years"), rt(ts, 8, "empty"),
				rt(ts, 9, "missing"), rt(ts, 10, "a boolean is not a time"), rt(ts, 11, "an object or array is not a time"),
				rt(ts, 12, "outside years"), invalid(ts, 16), rt(ts, 17, "unrecognized time"), rt(ts, 18, "outside years"),
				rt(ts, 19, "unrecognized time"), rt(ts, 20, "an object or array is not a time"), rt(ts, 23, "unrecognized time")}},
		{name: "invalid UTF-8", file: u8, code: 3, valid: names(u8, 1, 6, 8),
			bad: []qrow{utf(2, "content"), utf(3, "speaker"), utf(4, "group_id"), utf(5, "content"), utf(7, "content"),
				utf(9, "record_key"), invalid(u8, 10)}},
		{name: "bodies", file: bo, code: 3, valid: names(bo, 1, 8, 9, 10, 11, 12),
			bad: []qrow{{bo, 2, "content", "empty"}, {bo, 3, "content", "empty"}, {bo, 4, "content", "missing"},
				{bo, 5, "content", "missing"}, {bo, 6, "content", "not a number"}, {bo, 7, "content", "not a boolean"},
				{bo, 13, "content", "empty"}},
			content: map[string]string{bo + ":10": "nul \x00 inside", bo + ":12": "second wins",
				bo + ":8": `{"order":17,"status":"shipped"}`, bo + ":11": "\u200b"}},
		{name: "not objects", file: no, code: 3, valid: names(no, 1, 16),
			bad: []qrow{notObj(2), notObj(3), notObj(4), notObj(5), notObj(6), invalid(no, 7), invalid(no, 8), invalid(no, 9),
				{no, 10, "group_id", "missing"}, invalid(no, 11), invalid(no, 12), invalid(no, 13), invalid(no, 17),
				whole(no, 18, "exceeded max depth")}},
		// A record key names a record: a later row with the same key replaces the earlier one,
		// and identical rows without a key are one episode (the same content key).
		// The replacement is logged (the identical rows 3 and 4 are not).
		{name: "duplicate keys", file: "duplicates.jsonl", code: 0, valid: names("duplicates.jsonl", 2, 4, 5, 6),
			content: map[string]string{"duplicates.jsonl:2": "Order 17 was shipped."},
			warns:   []string{`the later row replaced it" group=dups record_key=r1`}, noWarn: "record_key=\"\""},
		// A blank group id is a missing one (never one group of every blank row): row 4.
		{name: "group ids mapped", file: "groups.jsonl", code: 3, valid: names("groups.jsonl", 1, 2, 3, 5, 7),
			bad: []qrow{{"groups.jsonl", 4, "group_id", "missing"}, {"groups.jsonl", 6, "group_id", "missing"},
				{"groups.jsonl", 8, "group_id", "an object or array is not text"}}},
		// Row 5's id is 300 valid bytes: longer than the sinks index (loaders.MaxGroupIDBytes).
		{name: "group ids rejected", file: "groups.jsonl", source: "\n    group_policy: reject\n    default_group: fallback", code: 3,
			valid: names("groups.jsonl", 1, 4, 6, 7),
			bad: []qrow{{"groups.jsonl", 2, "group_id", "outside [A-Za-z0-9_-]"}, {"groups.jsonl", 3, "group_id", "outside"},
				{"groups.jsonl", 5, "group_id", "bytes long, more than the 255 every sink can index"},
				{"groups.jsonl", 8, "group_id", "an object or array is not text"}}},
		{name: "BOM, CRLF, blank lines, no final newline", file: "crlf_bom.jsonl", code: 0, valid: names("crlf_bom.jsonl", 1, 3, 4)},
		// The ratio error names the quarantine file, which names the input files.
		{name: "error ratio", file: "mostly_bad.jsonl", extra: "-", code: 1, errText: "4 of 5 rows quarantined, above limits.max_error_ratio"},
		{name: "truncated gzip", file: "truncated.jsonl.gz", code: 1, errText: "unexpected EOF"},
		{name: "not gzip", file: "not_gzip.jsonl.gz", code: 1, errText: "gzip: invalid header"},
		{name: "valid parquet", file: "valid.parquet", code: 0, valid: names("valid.parquet", 1, 2, 3, 4, 5)},
		{name: "truncated parquet", file: "truncated.parquet", code: 1, errText: "invalid magic footer"},
		{name: "corrupt footer", file: "corrupt_footer.parquet", code: 1, errText: "reading parquet file metadata"},
		{name: "corrupt magic", file: "corrupt_magic.parquet", code: 1, errText: "invalid magic footer"},
		{name: "corrupt pages", file: "corrupt_pages.parquet", code: 1, errText: "reading row group 0"},
		{name: "corrupt schema (decoder panics)", file: "corrupt_schema.parquet", code: 1, errText: "the input is corrupt"},
		{name: "corrupt page header (decoder panics)", file: "corrupt_page_header.parquet", code: 1, errText: "the input is corrupt"},
		{name: "not parquet", file: "not_parquet.parquet", code: 1, errText: "invalid magic header"},
		{name: "empty parquet", file: "empty.parquet", code: 1, errText: "reading magic header"},
		{name: "wrong time type", file: "bool_time.parquet", code: 1, errText: `column "reference_time": unsupported type BOOLEAN`},
		{name: "missing time column", file: "no_time.parquet", code: 1, errText: `column "reference_time" is missing`},
		{name: "list body column", file: "list_body.parquet", code: 1, errText: `column "content" is not a single primitive value`},
		{name: "number body column", file: "int_body.parquet", code: 3,
			bad: []qrow{{"int_body.parquet", 1, "content", "not a number"}, {"int_body.parquet", 2, "content", "not a number"}}},
		{name: "parquet nulls", file: "nulls.parquet", code: 3, valid: names("nulls.parquet", 1, 6),
			bad: []qrow{{"nulls.parquet", 2, "group_id", "missing"}, rt("nulls.parquet", 3, "missing"),
				{"nulls.parquet", 4, "content", "missing"}, {"nulls.parquet", 5, "content", "empty"}}},
		{name: "parquet timestamps out of range", file: "timestamps.parquet", code: 3, valid: names("timestamps.parquet", 1, 4),
			bad: []qrow{rt("timestamps.parquet", 2, "outside years"), rt("timestamps.parquet", 3, "outside years")}},
		{name: "parquet float times", file: "float_time.parquet", code: 3, valid: names("float_time.parquet", 1),
			bad: []qrow{rt("float_time.parquet", 2, "NaN"), rt("float_time.parquet", 3, "+Inf"), rt("float_time.parquet", 4, "out of range")}},
		{name: "parquet invalid UTF-8", file: "invalid_utf8.parquet", code: 3, valid: names("invalid_utf8.parquet", 1),
			bad: []qrow{{"invalid_utf8.parquet", 2, "content", "invalid UTF-8"}, {"invalid_utf8.parquet", 3, "speaker", "invalid UTF-8"},
				{"invalid_utf8.parquet", 4, "group_id", "invalid UTF-8"}, rt("invalid_utf8.parquet", 5, "unrecognized time")}},
		{name: "locomo truncated", file: "locomo_truncated.json", source: "\n    format: locomo", code: 1, errText: "unexpected EOF"},
		{name: "locomo not an array", file: "locomo_object.json", source: "\n    format: locomo", code: 1, errText: "does not start with '['"},
		{name: "locomo bad session date", file: "locomo_bad_date.json", source: "\n    format: locomo", code: 3,
			bad: []qrow{{"locomo_bad_date.json", 1, "conversation.session_1_date_time", "does not match layout"}}},
		{name: "longmemeval truncated", file: "longmemeval_truncated.json", source: "\n    format: longmemeval", code: 1, errText: "unexpected EOF"},
		{name: "longmemeval bad sessions", file: "longmemeval_mismatch.json", source: "\n    format: longmemeval", code: 3,
			valid: []string{"q2/s3/1"},
			bad: []qrow{{"longmemeval_mismatch.json", 1, "haystack_sessions", "1 dates for 2 sessions"},
				{"longmemeval_mismatch.json", 2, "haystack_sessions[0][1].content", "not a number"},
				{"longmemeval_mismatch.json", 2, "haystack_sessions[0][2].content", "missing"}}},
		{name: "no such file", file: "does_not_exist.jsonl", code: 2, errText: "does_not_exist.jsonl does not exist"},
	}
}

// run runs one case through the binary and checks its outcome.
func (c badCase) run(t *testing.T, bin, dir, path string) {
	t.Helper()
	extra := c.extra
	switch extra {
	case "":
		extra = tolerant
	case "-":
		extra = ""
	}
	name := strings.NewReplacer(" ", "_", ",", "", "(", "", ")", "").Replace(c.name)
	job, checkpoint := writeJob(t, dir, name, "path: "+path+c.source, extra)
	res, err := harness.Run(t.Context(), bin, []string{"run", job}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "goroutine ") {
		t.Fatalf("backfill crashed (exit %d):\n%s", res.Code, res.Stderr)
	}
	if res.Code != c.code {
		t.Fatalf("exit %d, want %d\n%s", res.Code, c.code, res.Stderr)
	}
	if c.code == 1 || c.code == 2 {
		last := res.Stderr[strings.LastIndex(strings.TrimRight(res.Stderr, "\n"), "\n")+1:]
		names := strings.Contains(last, filepath.Base(path)) || strings.Contains(last, ".quarantine.jsonl")
		if !strings.Contains(last, c.errText) || !names {
			t.Fatalf("error %q: want it to name %s and contain %q", last, filepath.Base(path), c.errText)
		}
		if _, err := os.Stat(checkpoint); c.code == 2 && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a run refused before it started left a store behind: %v", err)
		}
		return
	}
	checkWarnings(t, res.Stderr, c.warns, c.noWarn)
	checkQuarantine(t, readQuarantine(t, checkpoint), c.bad)
	eps := episodesByName(t, checkpoint)
	got := make([]string, 0, len(eps))
	for n := range eps {
		got = append(got, n)
	}
	sort.Strings(got)
	want := slices.Clone(c.valid)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("staged episodes %q, want %q", got, want)
	}
	for n, text := range c.content {
		if e, ok := eps[n]; !ok || e.Content != text {
			t.Errorf("episode %s: content %q, want %q", n, e.Content, text)
		}
	}
}

// TestBadInput runs every corpus file through `backfill run` (offline responder, all stages):
// each gives a clear error naming the file (exit 1; exit 2 for a file that is not there, found
// before the run starts) or finishes with its bad rows quarantined
// (exit 3) and every valid row staged; it never crashes.
func TestBadInput(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	abs, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpusCases() {
		t.Run(c.name, func(t *testing.T) { c.run(t, bin, dir, filepath.Join(abs, c.file)) })
	}
}

// TestHugeBodies runs a 10 MB body (generated here, not committed) in JSON Lines and Parquet
// under different body limits: too long a line and too large a body are quarantined, and a
// limit above the body stages the row and runs every stage over it. The offline responder
// needs about 35 s for a 10 MB episode (its regular expressions), so by default the staged
// body is 512 KiB; BACKFILL_BADINPUT_HUGE=1 stages the 10 MB one.
func TestHugeBodies(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	text := func(n int) string { return strings.Repeat("Alice likes green tea. ", n/23+1)[:n] }
	huge := text(10 << 20)
	jsonl := filepath.Join(dir, "big.jsonl")
	writeFile(t, jsonl, lines(good("big", "2023-05-20T02:21:00Z", "Alice moved to Busan."),
		good("big", "2023-05-20T02:22:00Z", huge), good("big", "2023-05-20T02:23:00Z", "Alice left Busan.")))
	staged, stagedPath := text(512<<10), filepath.Join(dir, "staged.jsonl")
	if os.Getenv("BACKFILL_BADINPUT_HUGE") == "1" {
		staged = huge
	}
	writeFile(t, stagedPath, lines(good("big", "2023-05-20T02:21:00Z", "Alice moved to Busan."),
		good("big", "2023-05-20T02:22:00Z", staged), good("big", "2023-05-20T02:23:00Z", "Alice left Busan.")))
	pq := filepath.Join(dir, "big.parquet")
	writeFile(t, pq, writeParquet([]pqRow{{GroupID: "big", ReferenceTime: "2023-05-20T02:21:00Z", Content: "Alice moved to Busan."},
		{GroupID: "big", ReferenceTime: "2023-05-20T02:22:00Z", Content: huge}}))
	cases := []struct {
		c    badCase
		path string
	}{
		{badCase{name: "line over the line limit", code: 3, valid: names("big.jsonl", 1, 3),
			bad: []qrow{whole("big.jsonl", 2, "line is over")}}, jsonl},
		{badCase{name: "body over max_body_bytes", source: "\n    max_body_bytes: 2097152", code: 3, valid: names("big.jsonl", 1, 3),
			bad: []qrow{{"big.jsonl", 2, "content", "over the limit of 2097152"}}}, jsonl},
		{badCase{name: "body within max_body_bytes", source: "\n    max_body_bytes: 16777216", code: 0,
			valid: names("staged.jsonl", 1, 2, 3), content: map[string]string{"staged.jsonl:2": staged}}, stagedPath},
		{badCase{name: "parquet body over the default limit", code: 3, valid: names("big.parquet", 1),
			bad: []qrow{{"big.parquet", 2, "content", "over the limit of 1048576"}}}, pq},
	}
	for _, tc := range cases {
		t.Run(tc.c.name, func(t *testing.T) { tc.c.run(t, bin, dir, tc.path) })
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkWarnings requires each of want on some WARN line of the log and none to hold not.
func checkWarnings(t *testing.T, log string, want []string, not string) {
	t.Helper()
	var warns []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "level=WARN") {
			warns = append(warns, l)
		}
	}
	for _, w := range want {
		if !slices.ContainsFunc(warns, func(l string) bool { return strings.Contains(l, w) }) {
			t.Errorf("no warning holds %q; warnings:\n%s", w, strings.Join(warns, "\n"))
		}
	}
	if not != "" {
		for _, l := range warns {
			if strings.Contains(l, not) {
				t.Errorf("unexpected warning: %s", l)
			}
		}
	}
}
