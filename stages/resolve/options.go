package resolve

import (
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Defaults of Options.
const (
	DefaultEmbeddingThreshold = 0.92
	DefaultGreyThreshold      = 0.80
	DefaultBatchSize          = 20
	DefaultMaxPairs           = 1000
	DefaultFactJaccard        = 0.5
	DefaultFactCosine         = 0.85
	factWindow                = 20 // earlier facts of the same endpoint pair a fact is compared with
)

// Options of the stage.
type Options struct {
	MinHashThreshold   float64 // 3-gram Jaccard that merges two names (DefaultSimilarity; ≥ 1 disables the pass)
	EmbeddingThreshold float64 // name-embedding cosine that merges two names (0.92; ≥ 1 disables merging by embedding)
	GreyThreshold      float64 // cosine from which a pair of names goes to the LLM (0.80; ≥ 1 disables)
	BatchSize          int     // pairs per resolve_entities or dedupe_facts call (20)
	MaxPairs           int     // most pairs of each kind adjudicated per group (1000); the rest stay apart
	FactJaccard        float64 // 3-gram Jaccard from which two facts of the same endpoints go to the LLM (0.5)
	FactCosine         float64 // fact-embedding cosine from which they do (0.85)
	NoLLM              bool    // no adjudication: grey-zone pairs stay apart

	EntityTypes   []wire.EntityTypeIn // the ontology: labels, attributes and edge-type checks
	EdgeTypes     []wire.EdgeTypeIn
	ExcludedTypes []string // mentions of these types are dropped with their facts
}

// WithDefaults returns the options with every zero option set to its default: the options the
// stage runs with.
func (o Options) WithDefaults() Options {
	if o.MinHashThreshold == 0 {
		o.MinHashThreshold = DefaultSimilarity
	}
	if o.EmbeddingThreshold == 0 {
		o.EmbeddingThreshold = DefaultEmbeddingThreshold
	}
	if o.GreyThreshold == 0 {
		o.GreyThreshold = DefaultGreyThreshold
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.MaxPairs <= 0 {
		o.MaxPairs = DefaultMaxPairs
	}
	if o.FactJaccard == 0 {
		o.FactJaccard = DefaultFactJaccard
	}
	if o.FactCosine == 0 {
		o.FactCosine = DefaultFactCosine
	}
	return o
}

// key is the stage's part of its unit fingerprints (stages.Key): the options, the record-time
// mode, the versions of the tasks it asks and the embedder.
func (o Options) key(env stages.Env) (string, error) {
	return stages.Key(Stage, struct {
		Options    Options
		RecordTime string
		Tasks      map[string]string
		Embedder   string
	}{o.WithDefaults(), env.RecordTime, env.TaskVersionsOf(wire.TaskResolveEntities, wire.TaskDedupeFacts), env.EmbedderOf()})
}

// entityType returns the ontology's spelling of a type name (case-insensitive), or "" for
// "Entity", an empty type or a type the ontology does not define.
func (o Options) entityType(name string) string {
	name = strings.TrimSpace(name)
	for _, t := range o.EntityTypes {
		if strings.EqualFold(t.Name, name) && !strings.EqualFold(name, "Entity") {
			return t.Name
		}
	}
	return ""
}

// excluded reports whether a mention type ("" meaning "Entity") is excluded.
func (o Options) excluded(typ string) bool {
	typ = strings.TrimSpace(typ)
	if typ == "" {
		typ = "Entity"
	}
	for _, x := range o.ExcludedTypes {
		if strings.EqualFold(strings.TrimSpace(x), typ) {
			return true
		}
	}
	return false
}

// attributes returns the attribute names of an ontology type.
func (o Options) attributes(typ string) []string {
	for _, t := range o.EntityTypes {
		if t.Name == typ {
			return t.Attributes
		}
	}
	return nil
}

// edgeAllowed reports whether a predicate may link entities with the given labels: true unless
// the predicate is an edge type of the ontology and an endpoint has a specific label that the
// edge type does not list. A generic endpoint (no label) fits any edge type.
func (o Options) edgeAllowed(pred string, src, tgt []string) bool {
	for _, e := range o.EdgeTypes {
		if graph.Predicate(e.Name) != pred {
			continue
		}
		return fits(src, e.Sources) && fits(tgt, e.Targets)
	}
	return true
}

// fits reports whether an endpoint's labels fit an edge type's allowed types (empty = any).
func fits(labels, allowed []string) bool {
	if len(allowed) == 0 || len(labels) == 0 {
		return true
	}
	for _, l := range labels {
		for _, a := range allowed {
			if strings.EqualFold(l, a) || strings.EqualFold(a, "Entity") {
				return true
			}
		}
	}
	return false
}
