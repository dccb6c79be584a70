package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Entities written as bare names. A job that declares no entity types has no use for an
// entity's type (always "Entity") nor its attributes (always none), yet an answer in objects
// spells both for every entity: with qwen2.5-coder-1.5b, `,"type":"person","attributes":[]`
// was about a fifth of an extraction answer's characters on the gold set. For such an input the
// tasks that list entities (extraction in one call, over a window, and its entities call) take
// their named variant: the same schema with "entities" a list of name strings
// (["Priya","Vantor"]), which EntityMention decodes as entities of type "Entity" without
// attributes.

// namedEntitiesProperty is the answer property that lists entities.
const namedEntitiesProperty = "entities"

// namedSchema is s with its top-level "entities" list of EntityMention objects turned into a
// list of name strings capped like EntityMention.name; nil when s has no such list.
func namedSchema(s *Schema) *Schema {
	i := slices.IndexFunc(s.Properties, func(p Property) bool { return p.Name == namedEntitiesProperty })
	if i < 0 {
		return nil
	}
	list := s.Properties[i].Schema
	if list.Items == nil || !slices.Equal(propertyNames(list.Items), []string{"name", "type", "attributes"}) {
		return nil
	}
	n := *s
	n.Properties = slices.Clone(s.Properties)
	n.Properties[i].Schema = &Schema{Types: []string{"array"},
		Items: &Schema{Types: []string{"string"}, MaxLength: schemaCaps()["EntityMention.name"]}}
	return &n
}

func propertyNames(s *Schema) []string {
	names := make([]string, len(s.Properties))
	for i, p := range s.Properties {
		names[i] = p.Name
	}
	return names
}

// Named is the task as it asks input: its named-entities variant when it lists entities and
// input declares no entity types (NamedEntities), else t.
func (t *Task) Named(input any) *Task {
	if t.named != nil && NamedEntities(input) {
		return t.named
	}
	return t
}

// Variants are the schemas of the task's requests: t, then its named-entities variant if it has
// one. TaskVersion hashes them all.
func (t *Task) Variants() []*Task {
	if t.named == nil {
		return []*Task{t}
	}
	return []*Task{t, t.named}
}

// NamedEntities reports whether an input (ExtractInput, WindowInput, a pointer to either, or
// its JSON) declares no entity types and excludes none, so that an answer to it lists entities
// by name: no type would be kept or excluded. Any other input is false.
func NamedEntities(input any) bool {
	switch in := input.(type) {
	case ExtractInput:
		return untyped(in.EntityTypes, in.ExcludedTypes)
	case *ExtractInput:
		return in != nil && untyped(in.EntityTypes, in.ExcludedTypes)
	case WindowInput:
		return untyped(in.EntityTypes, in.ExcludedTypes)
	case *WindowInput:
		return in != nil && untyped(in.EntityTypes, in.ExcludedTypes)
	case json.RawMessage:
		return NamedEntities([]byte(in))
	case []byte:
		var types struct {
			EntityTypes   []EntityTypeIn `json:"entity_types"`
			ExcludedTypes []string       `json:"excluded_types"`
		}
		return json.Unmarshal(in, &types) == nil && untyped(types.EntityTypes, types.ExcludedTypes)
	}
	return false
}

func untyped(types []EntityTypeIn, excluded []string) bool { return len(types) == 0 && len(excluded) == 0 }

// UnmarshalJSON decodes an entity written as an object, or as a bare name (the named-entities
// variant): an entity of type "Entity" without attributes.
func (e *EntityMention) UnmarshalJSON(b []byte) error {
	var name string
	if len(b) > 0 && b[0] == '"' && json.Unmarshal(b, &name) == nil {
		*e = EntityMention{Name: name, Type: "Entity", Attributes: []AttributeValue{}}
		return nil
	}
	type plain EntityMention // without this method
	return json.Unmarshal(b, (*plain)(e))
}

// EncodeAnswer writes out, the answer of task t to input, as the task asks it for that input:
// in the named-entities variant its entities become their names. A responder that builds
// answers as Go values (the offline responder) writes them with it.
func (t *Task) EncodeAnswer(input, out any) ([]byte, error) {
	b, err := json.Marshal(out)
	if err != nil || t.Named(input) == t {
		return b, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("encoding %s answer: %w", t.Name, err)
	}
	var ents []EntityMention
	if err := json.Unmarshal(fields[namedEntitiesProperty], &ents); err != nil {
		return nil, fmt.Errorf("encoding %s answer: %w", t.Name, err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	if fields[namedEntitiesProperty], err = json.Marshal(names); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// ForAnswer is the variant of the task an answer is written in: the named-entities variant when
// the answer's first entity is a bare name, else t. Where the input of a request is not at hand
// (a provider batch's delivered answers) an answer is checked against it; the call that asked
// checks it again against its own request's variant.
func (t *Task) ForAnswer(answer []byte) *Task {
	if t.named == nil {
		return t
	}
	var fields struct {
		Entities []json.RawMessage `json:"entities"`
	}
	if json.Unmarshal(answer, &fields) == nil && len(fields.Entities) > 0 {
		if e := bytes.TrimSpace(fields.Entities[0]); len(e) > 0 && e[0] == '"' {
			return t.named
		}
	}
	return t
}
