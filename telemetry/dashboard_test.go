package telemetry

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
)

const (
	dashboardFile = "../deploy/grafana/backfill.json"
	docsFile      = "../docs/telemetry.md"
)

// dashboard is what the test reads of a Grafana dashboard.
type dashboard struct {
	Title  string `json:"title"`
	UID    string `json:"uid"`
	Panels []struct {
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Targets     []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// exported records one measurement on every instrument (each with the attributes its
// observer gives it) and returns the names and label names Prometheus stores them under.
func exported(t *testing.T) map[string][]string {
	t.Helper()
	f := newFixture(t)
	ctx, endRun := f.t.Run(context.Background(), "")
	sctx, endStage := f.t.Stage(ctx, "extract", "k")
	units := f.t.Units()
	uctx, endUnit := units.Unit(sctx, "extract", stages.Unit{Key: "u"})
	chat := f.t.Client(calls.OperationChat, "openai", "m", "")
	_, endCall := chat.Call(uctx, calls.CallInfo{Operation: calls.OperationChat, Stage: "extract", Task: "t"})
	chat.Counted("extract", "t", pacing.StageUsage{Calls: 1, CacheHits: 1, PromptTokens: 1, CompletionTokens: 1, CachedTokens: 1,
		ReasoningTokens: 1, Retries: 1, InvalidAnswers: 1, Truncated: 1, Salvaged: 1, CostUSD: 1})
	chat.Waited("extract", "t", 1)
	endCall(calls.CallEnd{Outcome: calls.CallOK})
	endUnit(stages.UnitDone, nil)
	sink := units.(graphdb.Observer)
	sink.Batch(sctx, graphdb.Batch{Dialect: "neo4j", Rows: 1})(0, nil)
	sink.Verified(sctx, "neo4j", 1, false)
	b := f.t.Batches()
	b.Opened(sctx, batch.Record{ID: "b", Kind: batch.KindChat})
	b.Submitted(sctx, batch.Record{ID: "b", Kind: batch.KindChat}, nil)
	endStage(report.Stats{}, nil)
	endRun(nil, "ok", nil)
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			base := strings.ReplaceAll(m.Name, ".", "_")
			if m.Unit == "s" {
				base += "_seconds"
			}
			var labels []string
			var names []string
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				names = []string{base + "_total"}
				for _, p := range d.DataPoints {
					labels = append(labels, keysOf(p.Attributes.ToSlice())...)
				}
			case metricdata.Sum[float64]:
				names = []string{base + "_total"}
				for _, p := range d.DataPoints {
					labels = append(labels, keysOf(p.Attributes.ToSlice())...)
				}
			case metricdata.Histogram[int64]:
				names = []string{base + "_bucket", base + "_sum", base + "_count"}
				for _, p := range d.DataPoints {
					labels = append(labels, keysOf(p.Attributes.ToSlice())...)
				}
			case metricdata.Histogram[float64]:
				names = []string{base + "_bucket", base + "_sum", base + "_count"}
				for _, p := range d.DataPoints {
					labels = append(labels, keysOf(p.Attributes.ToSlice())...)
				}
			}
			for _, n := range names {
				out[n] = append(out[n], labels...)
			}
		}
	}
	return out
}

// selector is a metric name and its label matchers in a PromQL expression; by is a "by (…)"
// clause.
var (
	selector = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}`)
	matcher  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)`)
	byClause = regexp.MustCompile(`by \(([^)]*)\)`)
)

// The dashboard parses, each panel says what it answers, charts only metrics the telemetry
// exports (as Prometheus names them) and groups by labels they carry; the docs page names
// every panel.
func TestDashboardChartsExportedMetrics(t *testing.T) {
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s does not parse: %v", dashboardFile, err)
	}
	doc, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	metrics := exported(t)
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("dashboard %q (uid %q) with %d panels", d.Title, d.UID, len(d.Panels))
	}
	charted := map[string]bool{}
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if p.Title == "" || p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %q: a title, a description (what it answers) and a query are required", p.Title)
			continue
		}
		if !strings.Contains(string(doc), p.Title) {
			t.Errorf("%s does not name panel %q", docsFile, p.Title)
		}
		for _, tg := range p.Targets {
			var labels []string
			var used []string
			for _, m := range selector.FindAllStringSubmatch(tg.Expr, -1) {
				name := m[1]
				if _, ok := metrics[name]; !ok {
					t.Errorf("panel %q charts %s, which the telemetry does not export", p.Title, name)
					continue
				}
				charted[strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_total"), "_bucket"), "_sum"), "_count")] = true
				used = append(used, name)
				for _, l := range matcher.FindAllStringSubmatch(m[2], -1) {
					labels = append(labels, l[1])
				}
			}
			for _, b := range byClause.FindAllStringSubmatch(tg.Expr, -1) {
				for _, l := range strings.Split(b[1], ",") {
					labels = append(labels, strings.TrimSpace(l))
				}
			}
			for _, l := range labels {
				if l == "le" {
					continue
				}
				found := false
				for _, name := range used {
					found = found || slices.Contains(metrics[name], l)
				}
				if !found {
					t.Errorf("panel %q uses label %s, which none of %v carries", p.Title, l, used)
				}
			}
		}
	}
	if len(charted) < 10 {
		t.Errorf("the dashboard charts %d metrics", len(charted))
	}
}

// keysOf are the label names of attributes as Prometheus stores them.
func keysOf(kvs []attribute.KeyValue) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = strings.ReplaceAll(string(kv.Key), ".", "_")
	}
	return out
}
