package stages

import (
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// Ontology holds a job's custom entity and edge types (ontology.*), which the extract, resolve
// and temporal stages read.
type Ontology struct {
	EntityTypes []EntityType
	EdgeTypes   []EdgeType
	// ExcludedTypes are entity types never extracted ("Entity" excludes untyped entities).
	ExcludedTypes []string
}

// EntityType is a custom entity type.
type EntityType struct {
	Name        string
	Description string
	Attributes  []string
}

// EdgeType is a custom fact type.
type EdgeType struct {
	Name        string
	Description string
	Sources     []string
	Targets     []string
	// Cardinality per source entity: one | many (default: temporal.DefaultCardinalities for
	// the name, else many). Used by the temporal stage only.
	Cardinality string
}

// Declare declares the ontology's job keys (ontology.*) on o's fields.
func (o *Ontology) Declare(s *options.Section) {
	options.ListOf(s, &o.EntityTypes, "entity_types", "custom entity types; names are node labels: identifiers "+
		"(`[A-Za-z_][A-Za-z0-9_]*`), unique ignoring case, not `Entity`, `Episodic` or `Community`",
		func(s *options.Section, t *EntityType) {
			s.String(&t.Name, "name", "the type's name: a node label")
			s.String(&t.Description, "description", "what the type is, for the model", options.Empty("no description"))
			s.Strings(&t.Attributes, "attributes", "attribute names: identifiers, unique, not an entity's own properties")
		})
	options.ListOf(s, &o.EdgeTypes, "edge_types", "custom fact types; a fact of an edge type whose endpoint labels the type "+
		"does not allow is stored as `RELATES_TO`", func(s *options.Section, t *EdgeType) {
		s.String(&t.Name, "name", "the type's name: an identifier naming a distinct predicate")
		s.String(&t.Description, "description", "what the type is, for the model", options.Empty("no description"))
		s.Strings(&t.Sources, "sources", "entity types of the ontology (or `Entity`) a fact of the type may start from", options.DefaultText("any"))
		s.Strings(&t.Targets, "targets", "entity types of the ontology (or `Entity`) a fact of the type may end at", options.DefaultText("any"))
		s.String(&t.Cardinality, "cardinality", "`one` or `many` per source entity; only the temporal stage reads it (see "+
			"[Contradictions](docs/concepts.md#contradictions))", options.DefaultText("the shipped one for the name, else `many`"),
			options.Check(func() error {
				if c := t.Cardinality; c != "" && c != graph.CardinalityOne && c != graph.CardinalityMany {
					return fmt.Errorf("%q is not one or many", c)
				}
				return nil
			}))
	})
	s.Strings(&o.ExcludedTypes, "excluded_types", "entity types of the ontology never extracted (`Entity` excludes untyped "+
		"entities); their facts are dropped too")
	s.Check(func() error { return o.validate() })
}

// IsEntityType reports whether name is the name of one of the ontology's entity types.
func (o *Ontology) IsEntityType(name string) bool {
	for _, t := range o.EntityTypes {
		if t.Name == name {
			return true
		}
	}
	return false
}

// EntityTypesIn are the entity types as the LLM tasks take them (nil when there are none).
func (o *Ontology) EntityTypesIn() []wire.EntityTypeIn {
	var out []wire.EntityTypeIn
	for _, t := range o.EntityTypes {
		out = append(out, wire.EntityTypeIn{Name: t.Name, Description: t.Description, Attributes: t.Attributes})
	}
	return out
}

// EdgeTypesIn are the edge types as the LLM tasks take them (nil when there are none).
func (o *Ontology) EdgeTypesIn() []wire.EdgeTypeIn {
	var out []wire.EdgeTypeIn
	for _, t := range o.EdgeTypes {
		out = append(out, wire.EdgeTypeIn{Name: t.Name, Description: t.Description, Sources: t.Sources, Targets: t.Targets})
	}
	return out
}

// Cardinalities are the cardinalities the edge types set, by name (an empty map when none does).
func (o *Ontology) Cardinalities() map[string]string {
	out := map[string]string{}
	for _, t := range o.EdgeTypes {
		if t.Cardinality != "" {
			out[t.Name] = t.Cardinality
		}
	}
	return out
}

// validateOntology checks the ontology's names. Entity type names become node labels and edge
// type names fact types: each must be an identifier ([A-Za-z_][A-Za-z0-9_]*), not a label of
// the graph model itself (Entity, Episodic, Community), and unique (entity types
// case-insensitively, as the stages match them; edge types by the predicate they name).
// Attribute names become node properties: identifiers, unique within their type, none of an
// entity's own properties. Edge endpoint types and excluded types must be entity types of the
// ontology, or Entity.
func (o *Ontology) validate() error {
	types, err := o.validateEntityTypes()
	if err != nil {
		return err
	}
	entityType := func(key, name string) error {
		if _, ok := types[strings.ToLower(name)]; !ok && !strings.EqualFold(name, cypher.LabelEntity) {
			return badOntology(key, "%q is not an entity type of the ontology (or Entity)", name)
		}
		return nil
	}
	if err := o.validateEdgeTypes(entityType); err != nil {
		return err
	}
	for i, x := range o.ExcludedTypes {
		if err := entityType(fmt.Sprintf("excluded_types[%d]", i), x); err != nil {
			return err
		}
	}
	return nil
}

// badOntology is the error of an invalid key under ontology.
func badOntology(key, format string, args ...any) error {
	return options.Bad(key, format, args...)
}

// validateEntityTypes checks the entity types and returns their keys by lower-case name.
func (o Ontology) validateEntityTypes() (map[string]string, error) {
	types := map[string]string{} // lower-case name → key
	for i, t := range o.EntityTypes {
		key := fmt.Sprintf("entity_types[%d]", i)
		if err := identifier(t.Name); err != nil {
			return nil, badOntology(key+".name", "%v", err)
		}
		for _, r := range []string{cypher.LabelEntity, cypher.LabelEpisodic, cypher.LabelCommunity} {
			if strings.EqualFold(t.Name, r) {
				return nil, badOntology(key+".name", "%q is a label of the graph model itself", t.Name)
			}
		}
		if prev, ok := types[strings.ToLower(t.Name)]; ok {
			return nil, badOntology(key+".name", "%q repeats the name of %s (names are compared case-insensitively)", t.Name, prev)
		}
		types[strings.ToLower(t.Name)] = key
		if err := validateAttributes(key, t.Attributes); err != nil {
			return nil, err
		}
	}
	return types, nil
}

// validateAttributes checks the attribute names of the entity type at key.
func validateAttributes(key string, attributes []string) error {
	attrs := map[string]bool{}
	for k, a := range attributes {
		akey := fmt.Sprintf("%s.attributes[%d]", key, k)
		if err := identifier(a); err != nil {
			return badOntology(akey, "%v", err)
		}
		if cypher.EntityProperty(a) {
			return badOntology(akey, "%q is a property every entity has", a)
		}
		if attrs[a] {
			return badOntology(akey, "%q is listed twice", a)
		}
		attrs[a] = true
	}
	return nil
}

// validateEdgeTypes checks the edge types; entityType checks an endpoint type.
func (o Ontology) validateEdgeTypes(entityType func(key, name string) error) error {
	preds := map[string]string{}
	for i, e := range o.EdgeTypes {
		key := fmt.Sprintf("edge_types[%d]", i)
		if err := identifier(e.Name); err != nil {
			return badOntology(key+".name", "%v", err)
		}
		p := graph.Predicate(e.Name)
		if p == "RELATES_TO" || p == "MENTIONS" || p == "HAS_MEMBER" {
			return badOntology(key+".name", "%q is a relationship type of the graph model itself", e.Name)
		}
		if prev, ok := preds[p]; ok {
			return badOntology(key+".name", "%q names the predicate %s, as %s does", e.Name, p, prev)
		}
		preds[p] = key
		for _, ends := range []struct {
			name  string
			types []string
		}{{"sources", e.Sources}, {"targets", e.Targets}} {
			for k, s := range ends.types {
				if err := entityType(fmt.Sprintf("%s.%s[%d]", key, ends.name, k), s); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// identifier checks that a name can be a label, relationship type or property name.
func identifier(name string) error {
	if !cypher.ValidIdentifier(name) {
		return fmt.Errorf("%q is not an identifier (a letter or _, then letters, digits or _)", name)
	}
	return nil
}
