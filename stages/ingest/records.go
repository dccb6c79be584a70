package ingest

import (
	"fmt"
	"log/slog"
	"sort"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/report"
)

// Records is what ingest read from JSON records (report.Records), in the run report and the plan.
type Records = report.Records

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
			t.MissingFields = map[string]int{}
		}
		if t.MissingFields[key]++; in.missingWhy[key] == "" {
			in.missingWhy[key] = d.Missing
		}
	}
}

// warnRecords logs one line per declaration whose fields some records lacked (why: the first
// reason seen per declaration), as information: a record that states nothing about a declared
// fact, as a ticket event without a comment, is common, and the counts are in the report and on
// its summary's "declared facts" line (Records.Missing). Records without their object field are
// a warning.
func warnRecords(log *slog.Logger, t *Records, why map[string]string) {
	if t == nil {
		return
	}
	keys := make([]string, 0, len(t.MissingFields))
	for k := range t.MissingFields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		log.Info("records lack a field of a declared fact: they state nothing about it, its earlier facts stay as they were",
			"declaration", k, "records", t.MissingFields[k], "first", why[k])
	}
	if t.WithoutObject > 0 {
		log.Warn("records lack their mapping.object field: extracted as records of no object, whose state facts close no other record's", "records", t.WithoutObject)
	}
}
