package loaders

import (
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/internal/options"
)

// Declare declares the job keys of a source that the loaders read (sources[].path, .format,
// .mapping, …) on s's fields; Timezone and Record come from elsewhere (the job's timezone, the
// JSON record keys of package records).
func (s *Spec) Declare(sec *options.Section) {
	sec.String(&s.Path, "path", "file, directory (its files, not hidden ones or subdirectories) or glob; an existing name is "+
		"taken literally even with glob characters (`export[1].jsonl`); `**` matches any number of directories; a file "+
		"named or matched that cannot be read (a dangling symlink, an unreadable file or directory, a FIFO) fails the run "+
		"naming it. `s3://bucket/prefix/*.parquet` (or `.jsonl`, a key, a \"directory\" prefix, `**`) reads from S3",
		options.Check(func() error {
			if s.Path == "" {
				return errors.New("required")
			}
			return nil
		}))
	sec.String(&s.Format, "format", "`jsonl`, `parquet`, `locomo` or `longmemeval`. Parquet text fields read BYTE_ARRAY "+
		"(plain, STRING, JSON, ENUM), signed and unsigned integers of any width (UINT64 as its exact digits) and UUID "+
		"columns; the reference time also TIMESTAMP (naive ones in `timezone`), DATE, INT96 and float epochs. A value "+
		"outside its type (an INT(8) holding 300, an INT96 time of day over a day, a naive time in a DST gap) is a "+
		"quarantined row; other types fail the file", options.DefaultText("by extension"))
	sec.Section("mapping", "input field (JSON key or Parquet column; dotted paths reach nested JSON) of each episode "+
		"attribute", s.Mapping.Declare)
	sec.String(&s.TimeFormat, "time_format", "`rfc3339`, `epoch_s`, `epoch_ms`, `epoch_us`, `epoch_ns` or a Go layout",
		options.DefaultText("auto: RFC 3339/ISO 8601 variants, epoch seconds or milliseconds by magnitude"))
	sec.String(&s.Source, "source", "episode source type (`message`, `text` or `json`) when not mapped")
	sec.String(&s.Description, "description", "episode source description when not mapped", options.Empty("no source description"))
	sec.String(&s.GroupPolicy, "group_policy", "`map`: a group id outside `[A-Za-z0-9_-]`, or longer than 255 bytes (every "+
		"sink indexes `group_id`, and FalkorDB's index finds no string past 4,096 bytes), is rewritten to its first 48 "+
		"bytes with other characters as `_`, `-`, and 128 bits of its SHA-256 in hex (distinct ids stay distinct); the "+
		"store records each id's input form, and a row that writes another group's mapped id verbatim is quarantined; "+
		"`reject`: the row is quarantined", options.DefaultText("`"+GroupMap+"`"))
	sec.String(&s.DefaultGroup, "default_group", "group of rows without one", options.Empty("no default group: rows without a group are quarantined"))
	sec.Int(&s.MaxBodyBytes, "max_body_bytes", "larger bodies are quarantined. A JSON body (an object or array, or text "+
		"of source `json`) is also bounded in shape, so that what a record costs grows with its bytes, not its shape: "+
		"`max_json_depth`, `max_json_values` and `max_json_path_bytes`; a body past a bound is a quarantined row whose "+
		"reason names it and its key (raise `max_body_bytes` and these together for very large records) (a 54 KB record "+
		"nested 9,000 levels deep took 0.9 GB and 4.4 s to read and prune before these bounds, 0.4 MB and 4 ms now)",
		options.DefaultText(fmt.Sprintf("%d MiB", DefaultMaxBodyBytes>>20)), options.Max(1<<30))
	sec.Int(&s.JSONShape.Depth, "max_json_depth", "levels of nesting of a JSON body, at most",
		options.DefaultText(fmt.Sprint(MaxJSONDepth)), options.Max(10_000)) // encoding/json's own nesting bound
	sec.Int(&s.JSONShape.Values, "max_json_values", "values of a JSON body, at most", options.DefaultText(fmt.Sprint(MaxJSONValues)),
		options.Max(1<<30))
	sec.Int(&s.JSONShape.PathBytes, "max_json_path_bytes", "bytes of field paths of a JSON body, at most: the sum over its "+
		"values of each value's dotted path (long keys deep inside large arrays)",
		options.DefaultText(fmt.Sprintf("%d MiB", MaxJSONPathBytes>>20)), options.Max(1<<34))
}

// Declare declares the job keys of the mapping (sources[].mapping.*) on m's fields.
func (m *Mapping) Declare(s *options.Section) {
	d := defaultMapping
	for _, f := range []struct {
		p               *string
		name, attr, def string
	}{{&m.Group, "group", "group_id", d.Group}, {&m.ReferenceTime, "reference_time", "reference_time", d.ReferenceTime},
		{&m.Speaker, "speaker", "speaker", d.Speaker},
		{&m.Body, "body", "content; a body that is a JSON object becomes canonical JSON with source `json`; `body: \"*\"` " +
			"takes the whole record", d.Body},
		{&m.Source, "source", "source", d.Source}, {&m.Description, "description", "source_description", d.Description},
		{&m.RecordKey, "record_key", "record_key", d.RecordKey}, {&m.Name, "name", "name", d.Name}} {
		s.String(f.p, f.name, "input field of the episode's "+f.attr, options.DefaultText("`"+f.def+"`"))
	}
	s.String(&m.Object, "object", "JSON Lines: field naming the object a JSON record is a snapshot of (e.g. `issue.id`; may "+
		"differ from the record key). Such a record's extraction context is the change list against the previous "+
		"snapshot (by reference time) of the same object, not the previous episodes; a record lacking the field (or "+
		"whose field is empty) is counted (`records.without_object`) and extracted as a record of no object: an object "+
		"of its own, whose declared state facts close no other record's and are closed by none",
		options.Empty("records are not snapshots of an object"))
}
