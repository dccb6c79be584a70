package loaders

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
)

// FuzzMapping decodes any JSON line under any field mapping (dotted paths and the whole-record
// body "*" included) and checks the row contract: exactly one of an episode or a bad row; a bad
// row names the file, row 1, a reason and a mapped field (or none); an episode has a valid group
// id, a UTC reference time in the supported years, non-blank valid UTF-8 text within the body
// limit, a known source and the id its group and record key give; and the result is the same
// when the line is decoded twice.
func FuzzMapping(f *testing.F) {
	seeds := []struct{ line, group, ref, body, speaker, key, layout string }{
		{`{"group_id":"g1","reference_time":"2023-05-20T02:21:00Z","speaker":"Ann","content":"Hi Ben"}`, "", "", "", "", "", ""},
		{`{"conv":{"id":"c 1"},"ts":1684549260,"msg":{"text":"hello","who":"Ann"},"k":7}`, "conv.id", "ts", "msg.text", "msg.who", "k", ""},
		{`{"g":"x","t":"20230520","r":{"a":[1,2],"b":null}}`, "g", "t", "*", "", "", "20060102"},
		{`{"g":"x","t":"5","b":{"z":1,"a":"\u00e9"}}`, "g", "t", "b", "", "", "epoch_ms"},
		{`{"a.b":"direct","a":{"b":"nested"},"t":"2024-01-01","c":"text"}`, "a.b", "t", "c", "", "", ""},
		{`{"g":"","t":"2024-01-01","c":"  "}`, "g", "t", "c", "", "", ""},
		{`{"g":"x","t":true,"c":"x"}`, "g", "t", "c", "", "", "rfc3339"},
		{`{"g":"x","t":"2024-01-01","c":"x","source":"json"}`, "g", "t", "c", "", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.line, s.group, s.ref, s.body, s.speaker, s.key, s.layout)
	}
	f.Fuzz(func(t *testing.T, line, group, ref, body, speaker, key, layout string) {
		spec := Spec{Path: "f.jsonl", Format: FormatJSONL, TimeFormat: layout, MaxBodyBytes: 4096, DefaultGroup: "",
			Mapping: Mapping{Group: group, ReferenceTime: ref, Body: body, Speaker: speaker, RecordKey: key}}
		norm, err := spec.normalize()
		if err != nil {
			return // an invalid spec is rejected before any row is read
		}
		raw := bytes.TrimSpace([]byte(line))
		if len(raw) == 0 {
			return // blank lines are skipped by readJSONL
		}
		fr := &fileReader{name: "f.jsonl", b: builder{spec: norm}, names: norm.Mapping, explicit: spec.Mapping}
		res := fr.jsonLine(1, raw)
		if again := fr.jsonLine(1, raw); !reflect.DeepEqual(res, again) {
			t.Fatalf("decoding %q twice differs: %+v vs %+v", line, res, again)
		}
		if res.Bad != nil {
			checkBad(t, res, norm.Mapping)
			return
		}
		checkEpisode(t, res.Episode, norm)
	})
}

// checkBad checks a bad row of FuzzMapping.
func checkBad(t *testing.T, res Result, m Mapping) {
	t.Helper()
	b := res.Bad
	if res.Episode.UUID != "" {
		t.Fatalf("a result with both an episode and a bad row: %+v", res)
	}
	fields := []string{"", m.Group, m.ReferenceTime, m.Speaker, m.Body, m.Source, m.Description, m.RecordKey, m.Name}
	if b.File != "f.jsonl" || b.Row != 1 || b.Reason == "" || !slices.Contains(fields, b.Field) {
		t.Fatalf("bad row does not name its file, row 1, a mapped field and a reason: %+v", b)
	}
}

// checkEpisode checks an episode of FuzzMapping.
func checkEpisode(t *testing.T, e graph.Episode, spec Spec) {
	t.Helper()
	if !ValidGroupID(e.GroupID) {
		t.Fatalf("group id %q is not valid", e.GroupID)
	}
	if e.ReferenceTime.Location() != time.UTC || e.ReferenceTime.Before(minTime) || !e.ReferenceTime.Before(maxTime) {
		t.Fatalf("reference time %v is not a UTC time in the supported years", e.ReferenceTime)
	}
	if strings.TrimSpace(e.Content) == "" || len(e.Content) > spec.MaxBodyBytes {
		t.Fatalf("content of %d bytes is blank or over the limit", len(e.Content))
	}
	for _, s := range []string{e.Content, e.Speaker, e.Name, e.SourceDescription, e.RecordKey, e.GroupID} {
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 in %+v", e)
		}
	}
	if e.Source != graph.SourceMessage && e.Source != graph.SourceText && e.Source != graph.SourceJSON {
		t.Fatalf("source %q", e.Source)
	}
	if e.RecordKey == "" || e.UUID != graph.EpisodeID(e.GroupID, e.RecordKey) || e.Seq != 1 {
		t.Fatalf("id %s, key %q, seq %d: not the id of its group and key", e.UUID, e.RecordKey, e.Seq)
	}
	if spec.Mapping.Body == "*" && !json.Valid([]byte(e.Content)) {
		t.Fatalf("whole-record body is not JSON: %q", e.Content)
	}
}
