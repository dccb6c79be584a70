package graph

// Kinds of declared facts.
const (
	DeclaredState = "state" // holds from the snapshot that shows it until one no longer does
	DeclaredEvent = "event" // happened at the record's reference time; never closed
)

// Record is what ingest read from a JSON record besides its content (sources[].mapping.object,
// sources[].json.text_fields, sources[].facts): the object the record is a snapshot of, the
// fields the LLM is asked about, the field paths its declared facts read and the facts its
// fields declare. It is taken from the full record, before pruning. An episode of a source
// with none of these has no Record.
type Record struct {
	Object     string        `json:"object,omitempty"`      // id of the object; "" when the record lacks it
	TextFields []string      `json:"text_fields,omitempty"` // paths of free-text fields (json.text_fields)
	FactPaths  []string      `json:"fact_paths,omitempty"`  // paths the declarations read
	Declared   []Declaration `json:"declared,omitempty"`    // one per sources[].facts entry, in order
}

// Declaration is one declared fact of a source (sources[].facts[k]) as a record states it.
type Declaration struct {
	Key         string `json:"key"` // "subject RELATION object": the declaration, by its paths
	Relation    string `json:"relation"`
	SubjectType string `json:"subject_type,omitempty"`
	ObjectType  string `json:"object_type,omitempty"`
	Kind        string `json:"kind"` // DeclaredState or DeclaredEvent
	// Missing says why the record gives no values ("issue.assignee.login: absent"): it does not
	// say, so the facts it stated earlier stay as they were. Empty when the fields are present.
	Missing string         `json:"missing,omitempty"`
	Pairs   []DeclaredPair `json:"pairs,omitempty"` // one per subject value × object value
}

// DeclaredPair is one fact a declaration gives: subject and object names and the sentence.
type DeclaredPair struct {
	Subject string `json:"subject"`
	Object  string `json:"object"`
	Fact    string `json:"fact"`
}
