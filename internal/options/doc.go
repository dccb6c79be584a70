// Package options is how a package declares the job keys it reads: each key once, beside the
// code that uses it, with its type (the field it is bound to), its default, its bounds, what an
// empty value means, a doc line, an example value and its validation, the way Benthos'
// components declare their config spec. Nothing here knows a part of the pipeline.
//
// A package declares its keys on a *Section, binding each to a field of its own settings:
//
//	func (o *Options) Declare(s *options.Section) {
//		s.Int(&o.MaxCandidates, "max_candidates", "most recent candidates shown per judgement",
//			options.Default(DefaultMaxCandidates), options.Max(1000), options.Example("5"))
//	}
//
// A key the job writes in other words or units than the code reads is bound through a
// conversion: Switch (one of two words for a bool), Seconds (a number of seconds for a
// time.Duration). Sections, lists (ListOf) and mappings (MapOf) of sections compose the keys of a
// job; several packages may declare keys of one section (Section adds to a declared one).
//
// jobs/pipeline assembles the sections of a job (the one place that knows every part); package
// jobs loads a job file into them (YAML, ${VAR}, --set, key and value errors), applies the
// defaults (ApplyDefaults), checks every number (finite, not negative, within its maximum) and
// runs the validations (Validate); the key reference and the help text are rendered from them
// (Rows, Markdown, Text).
//
// A default applies when the key's value is its zero value: unset, or 0, "" or false given
// explicitly (a pointer field: nil, so 0 given explicitly stays 0). An empty value given by
// --set KEY= or by a ${VAR} set but empty is an error unless the key declares what it means
// (Empty). Every number must be finite and not negative; Max bounds it from above.
package options
