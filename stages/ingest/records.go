package ingest

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
)

// Records is what ingest read from JSON records (JSON Lines rows with a JSON object body of
// source json), in the run report and the plan.
type Records struct {
	Records      int `json:"records"`       // JSON records read (of the shard's groups)
	Pruned       int `json:"pruned"`        // records whose content pruning shortened
	TokensBefore int `json:"tokens_before"` // estimated tokens of their bodies before pruning
	TokensAfter  int `json:"tokens_after"`  // and after: the content the episodes keep
	// WithoutObject counts records of a source with mapping.object that lack the field: they
	// are extracted as records of no object, with no snapshot to compare with.
	WithoutObject int `json:"without_object,omitempty"`
	// MissingFields counts, per declaration ("sources[0].facts[1]"), the records that lack one
	// of its fields: they state nothing about it, so its earlier facts stay as they were.
	MissingFields map[string]int `json:"missing_fields,omitempty"`
	// SkipLLM (plan only) counts the episodes whose extraction asks the LLM nothing: their
	// changes are covered by declared facts, no free-text field changed, or the LLM is off.
	SkipLLM int `json:"skip_llm"`
	// missingWhy is the first reason seen per declaration, for the warning.
	missingWhy map[string]string
}

// tally counts one row of source number i.
func (in *ingester) tally(i int, src loaders.Spec, r loaders.Result) {
	t := in.records
	ep := r.Episode
	if t == nil || r.Bad != nil || !in.shard.Owns(ep.GroupID) || ep.Source != graph.SourceJSON || len(ep.Content) == 0 || ep.Content[0] != '{' {
		return
	}
	t.Records++
	after := wire.EstimateTokens(ep.Content)
	t.TokensAfter += after
	if r.FullBody == "" {
		t.TokensBefore += after
	} else {
		t.Pruned++
		t.TokensBefore += wire.EstimateTokens(r.FullBody)
	}
	rec := ep.Record
	if rec == nil {
		return
	}
	if src.Mapping.Object != "" && rec.Object == "" {
		t.WithoutObject++
	}
	for k, d := range rec.Declared {
		if d.Missing == "" {
			continue
		}
		key := fmt.Sprintf("sources[%d].facts[%d]", i, k)
		if t.MissingFields == nil {
			t.MissingFields, t.missingWhy = map[string]int{}, map[string]string{}
		}
		if t.MissingFields[key]++; t.missingWhy[key] == "" {
			t.missingWhy[key] = d.Missing
		}
	}
}

// warn logs the records without their object field as a warning, and one line per
// declaration whose fields some records lacked (as information: a record that states nothing
// about a declared fact, as a ticket event without a comment, is common; the counts are in the
// report, Missing).
func (t *Records) warn(log *slog.Logger) {
	if t == nil {
		return
	}
	for _, k := range t.declarations() {
		log.Info("records lack a field of a declared fact: they state nothing about it, its earlier facts stay as they were",
			"declaration", k, "records", t.MissingFields[k], "first", t.missingWhy[k])
	}
	if t.WithoutObject > 0 {
		log.Warn("records lack their mapping.object field: extracted as records of no object, whose state facts close no other record's", "records", t.WithoutObject)
	}
}

// declarations returns the keys of MissingFields in order.
func (t *Records) declarations() []string {
	keys := make([]string, 0, len(t.MissingFields))
	for k := range t.MissingFields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Missing describes MissingFields for a summary line ("35 records lack a field of
// sources[0].facts[5]"), "" when no record lacked one.
func (t *Records) Missing() string {
	var parts []string
	for _, k := range t.declarations() {
		parts = append(parts, fmt.Sprintf("%d records lack a field of %s", t.MissingFields[k], k))
	}
	return strings.Join(parts, ", ")
}
