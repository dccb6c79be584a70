package loaders

import (
	"fmt"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// Formats Read understands. An empty Spec.Format picks jsonl or parquet from the file extension.
const (
	FormatJSONL       = "jsonl"
	FormatParquet     = "parquet"
	FormatLoCoMo      = "locomo"
	FormatLongMemEval = "longmemeval"
)

// Group policies: what to do with a group id outside [A-Za-z0-9_-].
const (
	GroupMap    = "map"
	GroupReject = "reject"
)

// DefaultMaxBodyBytes is the body size limit when Spec.MaxBodyBytes is 0.
const DefaultMaxBodyBytes = 1 << 20

// Spec describes one input source of a job. For the benchmark formats (locomo, longmemeval) the
// Mapping, TimeFormat and Source are fixed by the format; Timezone, Description, GroupPolicy,
// DefaultGroup and MaxBodyBytes apply as for the others.
type Spec struct {
	Path        string         // local path, directory or glob ("data/*.jsonl"); other schemes via FS
	Format      string         // jsonl | parquet | locomo | longmemeval | "" (from the extension)
	Mapping     Mapping        // input field per episode attribute
	Timezone    *time.Location // zone of naive timestamps; nil = UTC
	TimeFormat  string         // "" (auto) | rfc3339 | epoch_s | epoch_ms | epoch_us | epoch_ns | a Go layout
	Source      string         // episode source when no source field is mapped: message | text | json
	Description string         // source_description when no description field is mapped
	GroupPolicy string         // map (default) | reject
	// DefaultGroup is the group of rows whose group field is absent or empty.
	DefaultGroup string
	// MaxBodyBytes bounds the body size; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int
	// JSONShape bounds the shape of JSON bodies (zero fields: the defaults).
	JSONShape Shape
	// Record says how JSON records (JSON Lines rows whose body is an object) are pruned and what
	// is read from them besides their content; nil: nothing (see ReadRecord).
	Record *RecordSpec
}

// Mapping names the input field (JSON key or Parquet column; dotted paths reach into nested JSON
// objects or Parquet groups) for each episode attribute. An empty name means the default:
// group_id, reference_time, speaker, content, source, source_description, record_key, name.
// Body "*" makes the whole JSON record the body, as canonical JSON (JSON Lines only). Object
// (JSON Lines only, no default) names the field that identifies the object a record is a
// snapshot of.
type Mapping struct {
	Group, ReferenceTime, Speaker, Body, Source, Description, RecordKey, Name, Object string
}

// Bad is a row that did not become an episode.
type Bad struct {
	File   string // the file name as the FS reported it
	Row    int64  // 1-based line (JSON Lines), row (Parquet) or array element (benchmarks)
	Field  string // the input field at fault; empty when the row as a whole is bad
	Reason string
	Raw    string // the row's text (valid UTF-8), at most MaxRawBytes
}

// MaxRawBytes bounds Bad.Raw.
const MaxRawBytes = 2 << 10

// Result is one row of input: exactly one of Episode and Bad is set.
type Result struct {
	Episode graph.Episode
	Bad     *Bad
	// OriginalGroup is the group id as read when GroupPolicy "map" rewrote it; else empty.
	OriginalGroup string
	// FullBody is the canonical body before pruning when pruning changed it; else empty.
	FullBody string
	// File, Row and GroupField locate a good row as a Bad would (the file, the 1-based row and
	// the input field of the group), for a caller that rejects the row later.
	File       string
	Row        int64
	GroupField string
}

// defaultMapping holds the field names used when a Mapping entry is empty.
var defaultMapping = Mapping{
	Group: "group_id", ReferenceTime: "reference_time", Speaker: "speaker", Body: "content",
	Source: "source", Description: "source_description", RecordKey: "record_key", Name: "name",
}

// withDefaults returns the mapping with every empty entry set to its default name.
func (m Mapping) withDefaults() Mapping {
	or := func(a, b string) string {
		if a == "" {
			return b
		}
		return a
	}
	d := defaultMapping
	return Mapping{
		Group: or(m.Group, d.Group), ReferenceTime: or(m.ReferenceTime, d.ReferenceTime),
		Speaker: or(m.Speaker, d.Speaker), Body: or(m.Body, d.Body), Source: or(m.Source, d.Source),
		Description: or(m.Description, d.Description), RecordKey: or(m.RecordKey, d.RecordKey),
		Name: or(m.Name, d.Name), Object: m.Object,
	}
}

// Validate reports the first invalid setting of the spec.
func (s Spec) Validate() error {
	_, err := s.normalize()
	return err
}

// normalize validates the spec and fills its defaults.
func (s Spec) normalize() (Spec, error) {
	switch s.Format {
	case "", FormatJSONL, FormatParquet, FormatLoCoMo, FormatLongMemEval:
	default:
		return s, fmt.Errorf("checking spec: unknown format %q", s.Format)
	}
	switch s.GroupPolicy {
	case "":
		s.GroupPolicy = GroupMap
	case GroupMap, GroupReject:
	default:
		return s, fmt.Errorf("checking spec: unknown group policy %q (want map or reject)", s.GroupPolicy)
	}
	switch s.Source {
	case "", graph.SourceMessage, graph.SourceText, graph.SourceJSON:
	default:
		return s, fmt.Errorf("checking spec: unknown source %q (want message, text or json)", s.Source)
	}
	if s.JSONShape.Depth < 0 || s.JSONShape.Values < 0 || s.JSONShape.PathBytes < 0 {
		return s, fmt.Errorf("checking spec: a negative JSON shape bound %+v", s.JSONShape)
	}
	s.JSONShape = s.JSONShape.withDefaults()
	if s.MaxBodyBytes < 0 {
		return s, fmt.Errorf("checking spec: negative max body bytes %d", s.MaxBodyBytes)
	}
	if s.MaxBodyBytes == 0 {
		s.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if s.Timezone == nil {
		s.Timezone = time.UTC
	}
	if s.DefaultGroup != "" && !ValidGroupID(s.DefaultGroup) {
		return s, fmt.Errorf("checking spec: default group %q is not a valid group id", s.DefaultGroup)
	}
	if err := checkTimeFormat(s.TimeFormat); err != nil {
		return s, fmt.Errorf("checking spec: %w", err)
	}
	s.Mapping = s.Mapping.withDefaults()
	if s.Format == FormatParquet && s.Mapping.Body == "*" {
		return s, fmt.Errorf("checking spec: body \"*\" (whole record) is only supported for JSON Lines")
	}
	if s.Format != "" && s.Format != FormatJSONL && s.Record.jsonlOnly(&s.Mapping) {
		return s, fmt.Errorf("checking spec: JSON record options (json, facts, mapping.object) are only supported for JSON Lines")
	}
	return s, nil
}
