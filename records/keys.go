package records

import "github.com/tkgraph/backfill/internal/options"

// JSON prunes the JSON records of a source and names their free-text fields
// (sources[].json). Paths and patterns are dotted paths inside the body (the record); see
// Path and Pattern for their syntax.
type JSON struct {
	Drop       []string // glob patterns of fields left out of the content
	Keep       []string // when set, only the fields these patterns match stay
	DropNulls  *bool    // leave out null values (default true)
	DropEmpty  *bool    // leave out "", {} and [] (default true)
	TextFields []string // free-text fields: the only ones the LLM is asked about
}

// FactDecl declares a fact that follows from two fields of a record (sources[].facts[]): one
// fact per subject value and object value, without the LLM.
type FactDecl struct {
	Subject     string // field path of the subject's name
	SubjectType string
	Relation    string // SCREAMING_SNAKE_CASE predicate
	Object      string // field path of the object's name (may pass through arrays)
	ObjectType  string
	Kind        string // state (default: closed when a later snapshot no longer shows it) | event
	Fact        string // sentence with {subject} and {object} (default "{subject} <relation words> {object}")
}

// Declare declares the job keys of a source's JSON records (sources[].json.*) on o's fields.
func (o *JSON) Declare(s *options.Section) {
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

// Declare declares the job keys of a declared fact (sources[].facts[]) on f's fields.
func (f *FactDecl) Declare(s *options.Section) {
	s.String(&f.Subject, "subject", "field path of the subject's name")
	s.String(&f.SubjectType, "subject_type", "entity type of the subject, from `ontology.entity_types`")
	s.String(&f.Relation, "relation", "the predicate, in SCREAMING_SNAKE_CASE")
	s.String(&f.Object, "object", "field path of the object's name (may pass through arrays)")
	s.String(&f.ObjectType, "object_type", "entity type of the object, from `ontology.entity_types`")
	s.String(&f.Kind, "kind", "`state` (needs `mapping.object`): valid from the snapshot that first shows it, closed at the "+
		"reference time of the first later snapshot of the object that no longer shows it (a changed field, a removed "+
		"list element, a null or empty field), known from that snapshot's record time (`expired_at`); a record that "+
		"lacks the field says nothing and closes nothing (counted per declaration in `records.missing_fields` and on the "+
		"`declared facts` line of the `run` and `plan` summaries; logged at level INFO, not as a warning: a ticket event "+
		"without a comment is no fault). `event`: a fact of its record, never closed",
		options.DefaultText("`state`"))
	s.String(&f.Fact, "fact", "a sentence with `{subject}` and `{object}`", options.DefaultText("`\"{subject} <relation words> {object}\"`"))
}
