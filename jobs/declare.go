package jobs

import (
	"errors"
	"strings"

	"github.com/tkgraph/backfill/internal/options"
)

// Declare declares the keys of a source (sources[]).
func (s *Source) Declare(sec *options.Section) {
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
		"attribute", s.Mapping.declare)
	sec.String(&s.TimeFormat, "time_format", "`rfc3339`, `epoch_s`, `epoch_ms`, `epoch_us`, `epoch_ns` or a Go layout",
		options.DefaultText("auto: RFC 3339/ISO 8601 variants, epoch seconds or milliseconds by magnitude"))
	sec.String(&s.Source, "source", "episode source type (`message`, `text` or `json`) when not mapped")
	sec.String(&s.Description, "description", "episode source description when not mapped", options.Empty("no source description"))
	sec.String(&s.GroupPolicy, "group_policy", "`map`: a group id outside `[A-Za-z0-9_-]` is rewritten to its first 48 "+
		"bytes with other characters as `_`, `-`, and 128 bits of its SHA-256 in hex (distinct ids stay distinct); the "+
		"store records each id's input form, and a row that writes another group's mapped id verbatim is quarantined; "+
		"`reject`: the row is quarantined", options.DefaultText("map"))
	sec.String(&s.DefaultGroup, "default_group", "group of rows without one", options.Empty("no default group: rows without a group are quarantined"))
	sec.Int(&s.MaxBodyBytes, "max_body_bytes", "larger bodies are quarantined. A JSON body (an object or array, or text of "+
		"source `json`) is also bounded in shape, so that what a record costs grows with its bytes, not its shape: at "+
		"most 64 levels of nesting, 100,000 values, and 16 MiB of field paths (the sum over its values of each value's "+
		"dotted path: long keys deep inside large arrays); a body past a bound is a quarantined row whose reason names "+
		"it", options.DefaultText("1 MiB"), options.Max(1<<30))
	sec.Section("json", "JSON Lines records (object bodies): how they are pruned and which fields are free text", s.JSON.declare)
	options.ListOf(sec, &s.Facts, "facts", "facts that follow from fields alone, no LLM: paths inside the record "+
		"(`object: \"issue.assignees[*].login\"` gives one fact per value), types from `ontology.entity_types`. "+
		"Declared facts are never judged by the LLM; their entities resolve with the LLM's as usual",
		func(sec *options.Section, f *FactDecl) { f.declare(sec) })
	sec.String(&s.Sync, "sync", "`append`: rows that leave the source stay in the graph; `mirror`: an episode whose row left "+
		"the source is forgotten by the next run, as `forget` would, unless more than `limits.max_vanished_ratio` of the "+
		"source's episodes left at once (see [Forgetting](#forgetting))", options.Default(SyncAppend),
		options.Words(SyncAppend, SyncMirror))
}

func (m *Mapping) declare(s *options.Section) {
	for _, f := range []struct {
		p          *string
		name, attr string
	}{{&m.Group, "group", "group_id"}, {&m.ReferenceTime, "reference_time", "reference_time"}, {&m.Speaker, "speaker", "speaker"},
		{&m.Body, "body", "content; a body that is a JSON object becomes canonical JSON with source `json`; `body: \"*\"` takes the whole record"},
		{&m.Source, "source", "source"}, {&m.Description, "description", "source_description"}, {&m.RecordKey, "record_key", "record_key"},
		{&m.Name, "name", "name"}} {
		def, _, _ := strings.Cut(f.attr, ";")
		s.String(f.p, f.name, "input field of the episode's "+f.attr, options.DefaultText(def))
	}
	s.String(&m.Object, "object", "JSON Lines: field naming the object a JSON record is a snapshot of (e.g. `issue.id`; may "+
		"differ from the record key). Such a record's extraction context is the change list against the previous "+
		"snapshot (by reference time) of the same object, not the previous episodes; a record lacking the field (or "+
		"whose field is empty) is counted (`records.without_object`) and extracted as a record of no object: an object "+
		"of its own, whose declared state facts close no other record's and are closed by none",
		options.Empty("records are not snapshots of an object"))
}

func (o *JSONOpts) declare(s *options.Section) {
	patterns := "glob patterns over dotted paths inside the record (`**` any number of keys, `*` inside a key, `[*]` " +
		"after an array key is optional), e.g. `\"**.node_id\"`, `\"**.*_url\"`, `\"sender.avatar_*\"`"
	s.Strings(&o.Drop, "drop", patterns+": the matched fields are left out of the episode's content (what the model sees "+
		"and `Episodic.content` keeps). Mapped fields and declared facts are read from the full record before pruning, "+
		"and ids do not depend on pruning; the original stays in the source under its record key")
	s.Strings(&o.Keep, "keep", patterns+": when set, only the matched fields stay")
	s.OptBool(&o.DropNulls, "drop_nulls", "leave out null values (also those emptied by pruning)", options.DefaultText("true"))
	s.OptBool(&o.DropEmpty, "drop_empty", "leave out `\"\"`, `{}` and `[]` (also those emptied by pruning)", options.DefaultText("true"))
	s.Strings(&o.TextFields, "text_fields", "free-text fields (e.g. `[issue.body, comment.body]`): the LLM sees only those "+
		"whose value is new or changed against the previous snapshot, with the record's declared facts as known facts, "+
		"and is not asked at all when none changed. Without it, the LLM sees the whole pruned record and is skipped when "+
		"every change lies in the fields the declared facts read. A text field that pruning would remove is a load-time "+
		"error")
}

func (f *FactDecl) declare(s *options.Section) {
	s.String(&f.Subject, "subject", "field path of the subject's name")
	s.String(&f.SubjectType, "subject_type", "entity type of the subject, from `ontology.entity_types`")
	s.String(&f.Relation, "relation", "the predicate, in SCREAMING_SNAKE_CASE")
	s.String(&f.Object, "object", "field path of the object's name (may pass through arrays)")
	s.String(&f.ObjectType, "object_type", "entity type of the object, from `ontology.entity_types`")
	s.String(&f.Kind, "kind", "`state` (needs `mapping.object`): valid from the snapshot that first shows it, closed at the "+
		"reference time of the first later snapshot of the object that no longer shows it (a changed field, a removed "+
		"list element, a null or empty field), known from that snapshot's record time (`expired_at`); a record that "+
		"lacks the field says nothing and closes nothing (counted per declaration in `records.missing_fields` and on the "+
		"`declared facts` line of the `run` and `plan` summaries). `event`: a fact of its record, never closed",
		options.DefaultText("state"))
	s.String(&f.Fact, "fact", "a sentence with `{subject}` and `{object}`", options.DefaultText("\"{subject} <relation words> {object}\""))
}

// Declare declares the keys of the section.
func (l *Limits) Declare(s *options.Section) {
	s.Float(&l.MaxCostUSD, "max_cost_usd", "spending cap of one run, chat and embeddings together (0 = none). Each request "+
		"reserves its estimated cost first; once the cap would be passed, no request starts, the ones in flight finish and "+
		"are cached, and the run stops with exit 3 (`budget_stopped` in the report). Cached answers cost 0. In batch mode "+
		"each request books its estimate at the batch price when it is queued, before its batch is submitted, and the "+
		"batch is corrected to its real cost when its answers arrive; the request that would pass the cap is refused, the "+
		"ones queued before it are submitted. Needs a price for both models")
	s.OptFloat(&l.MaxErrorRatio, "max_error_ratio", "quarantined/read rows above which ingest fails (`0`: any quarantined row "+
		"fails the run)", options.Default(DefaultMaxErrorRatio), options.Max(1))
	s.OptFloat(&l.MaxFailedRatio, "max_failed_ratio", "share of a stage's units whose LLM answers stayed bad above which the "+
		"run stops with exit 1, judged once 10 units of the stage have run (`0`: the first failed unit stops the run)",
		options.Default(DefaultMaxFailedRatio), options.Max(1))
	s.OptFloat(&l.MaxVanishedRatio, "max_vanished_ratio", "share of a `sync: mirror` source's episodes that may leave it at "+
		"once: above it the run stops with exit 1 naming the source and the counts, and forgets nothing (a mistyped path "+
		"or an emptied bucket must not erase a graph). Rows removed on purpose in bulk: run once with `--set "+
		"limits.max_vanished_ratio=1`", options.Default(DefaultMaxVanishedRatio), options.Max(1))
}
