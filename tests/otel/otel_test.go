package otel

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// runAttr is the resource attribute (OTEL_RESOURCE_ATTRIBUTES) that tells one run's telemetry
// from the rest the shared collector received.
const runAttr = "backfill.test.run"

// priced runs the demo against the stub under models with list prices, so the cost is not 0.
func priced(base string) []string {
	return []string{"--set", "llm.provider=openai", "--set", "llm.base_url=" + base, "--set", "llm.model=gpt-4o-mini",
		"--set", "embedder.provider=openai", "--set", "embedder.base_url=" + base, "--set", "embedder.model=text-embedding-3-small"}
}

// fixture is the built binary, the collector and the stub of a test.
type fixture struct {
	root, bin, dir string
	col            testenv.OTelCollector
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{col: testenv.Collector(t), dir: t.TempDir()}
	var err error
	if f.root, err = harness.RepoRoot("."); err != nil {
		t.Fatal(err)
	}
	if f.bin, err = harness.Build(t.Context(), f.root, f.dir); err != nil {
		t.Fatal(err)
	}
	return f
}

// run runs the demo job (repository's jobs/examples/demo.yaml) into checkpoint with args and
// the OTEL_* variables of otel (every other one empty), and returns its exit, its report and
// the run id its telemetry carries.
func (f *fixture) run(t *testing.T, checkpoint string, otel map[string]string, args ...string) (harness.Result, report.Report, string) {
	t.Helper()
	return f.command(t, "run", checkpoint, otel, args...)
}

// command is run with another command of the binary (run, forget) on the demo job.
func (f *fixture) command(t *testing.T, cmd, checkpoint string, otel map[string]string, args ...string) (harness.Result, report.Report, string) {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	env := []string{"BACKFILL_CHECKPOINT=" + checkpoint, "OTEL_SERVICE_NAME=backfill-test",
		"OTEL_RESOURCE_ATTRIBUTES=" + runAttr + "=" + id}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
		"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_TRACES_SAMPLER", "OTEL_EXPORTER_OTLP_HEADERS",
		"TRACEPARENT"} {
		env = append(env, k+"="+otel[k])
	}
	rep := filepath.Join(f.dir, id+".report.json")
	res, err := harness.Run(t.Context(), f.bin, append([]string{cmd, "jobs/examples/demo.yaml", "--report", rep}, args...),
		harness.Options{Dir: f.root, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if cmd == "run" && (res.Code == 0 || res.Code == 3) {
		harness.ReadJSON(t, rep, &r)
	}
	return res, r, id
}

// await reads the run's spans and metrics once the collector has written its root span and
// its run count (the process flushed both before it exited; the file exporter writes them
// within its flush interval).
func (f *fixture) await(t *testing.T, id string) (*tree, map[string][]series) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		spans := spansOf(t, f.col.Traces, id)
		m := metricsOf(t, f.col.Metrics, id)
		tr := newTree(spans)
		if tr.root != nil && len(m["backfill.runs"]) > 0 {
			return tr, m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector holds %d spans and %d metrics of run %s, no root span or run count", len(spans), len(m), id)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// tree is a run's spans by id and parent.
type tree struct {
	byID     map[string]span
	children map[string][]span
	root     *span
	traces   map[string]bool
}

func newTree(spans []span) *tree {
	tr := &tree{byID: map[string]span{}, children: map[string][]span{}, traces: map[string]bool{}}
	for _, s := range spans {
		tr.byID[s.SpanID] = s
		tr.traces[s.TraceID] = true
		if s.Parent == "" {
			s := s
			tr.root = &s
		} else {
			tr.children[s.Parent] = append(tr.children[s.Parent], s)
		}
	}
	return tr
}

// under lists the spans named with prefix below s, at any depth.
func (tr *tree) under(s span, prefix string) []span {
	var out []span
	for _, c := range tr.children[s.SpanID] {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
		out = append(out, tr.under(c, prefix)...)
	}
	return out
}

// TestRunExportsTreeAndTotals runs the demo job through the stub (some transport faults, some
// extraction answers that stay bad) into FalkorDB with the OTLP variables pointing at the
// collector, and checks what arrived: the span tree with its attributes and errors, and metric
// totals equal to the run report's; then the same run in batch mode over gRPC (calls linked to
// the batches that carry their requests), and one without an endpoint, which exports nothing.
func TestRunExportsTreeAndTotals(t *testing.T) {
	f := newFixture(t)
	falkor := testenv.FalkorDBExclusive(t)
	db, err := harness.DialFalkorDB(falkor)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = db.Clear(t.Context()) }()
	s, err := harness.StartStub(stub.Options{FaultRate: 0.1, Seed: 7, Faults: []string{"429", "500"}, RetryAfter: time.Millisecond,
		BadRate: 0.1, BadTasks: []string{"extract_graph"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	http := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": f.col.Endpoint}
	args := append(priced(s.URL), "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor, "--set", "llm.max_attempts=6")
	res, rep, id := f.run(t, filepath.Join(f.dir, "online.db"), http, args...)
	if res.Code != 3 || rep.FailedUnits == 0 || rep.LLM.Retries == 0 || rep.Load == nil {
		t.Fatalf("exit %d, %d failed units, %d retries, load %v: want failed units and retries (exit 3) and a load\n%s",
			res.Code, rep.FailedUnits, rep.LLM.Retries, rep.Load, harness.Tail(res.Stderr, 20))
	}
	tr, m := f.await(t, id)
	t.Logf("online: %d spans; %d requests (%d retries), %d cache hits, %d/%d tokens, $%.6f; %d failed units; %d sink batches of %d rows",
		len(tr.byID), rep.LLM.Calls, rep.LLM.Retries, rep.LLM.CacheHits, rep.LLM.PromptTokens, rep.LLM.CompletionTokens, rep.LLM.CostUSD,
		rep.FailedUnits, rep.Load.Batches, rep.Load.Nodes+rep.Load.Edges)
	checkTree(t, tr, rep)
	checkTotals(t, m, rep)

	t.Run("forget", func(t *testing.T) {
		// forget runs the stages on a store it opened itself: its run is traced the same way.
		res, _, id := f.command(t, "forget", filepath.Join(f.dir, "online.db"), http, append(args, "--group", "shop")...)
		if res.Code != 0 && res.Code != 3 {
			t.Fatalf("exit %d\n%s", res.Code, harness.Tail(res.Stderr, 20))
		}
		tr, _ := f.await(t, id)
		if tr.root.Name != "run demo" || len(tr.traces) != 1 {
			t.Fatalf("root %q, %d traces", tr.root.Name, len(tr.traces))
		}
		var stages []string
		for _, s := range tr.children[tr.root.SpanID] {
			stages = append(stages, s.Name)
		}
		if slices.Contains(stages, "stage ingest") || !slices.Contains(stages, "stage extract") || len(tr.under(*tr.root, "unit ")) == 0 {
			t.Fatalf("forget's run has stages %v and %d units under them: want every stage but ingest (and load), with units",
				stages, len(tr.under(*tr.root, "unit ")))
		}
	})

	t.Run("batch mode over grpc", func(t *testing.T) {
		grpc := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": f.col.GRPCEndpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
		res, rep, id := f.run(t, filepath.Join(f.dir, "batch.db"), grpc, append(priced(s.URL), "--set", "llm.mode=batch",
			"--set", "embedder.mode=batch", "--set", "llm.batch.poll_seconds=0.05", "--set", "llm.max_attempts=6")...)
		if res.Code != 0 && res.Code != 3 {
			t.Fatalf("exit %d\n%s", res.Code, harness.Tail(res.Stderr, 20))
		}
		tr, m := f.await(t, id)
		checkTotals(t, m, rep)
		batches := map[string]span{}
		for _, b := range tr.byID {
			if b.Name == "batch chat" || b.Name == "batch embeddings" {
				batches[b.SpanID] = b
				if p := tr.byID[b.Parent]; !strings.HasPrefix(p.Name, "stage ") {
					t.Errorf("batch span %s is a child of %q, want a stage's", b.SpanID, p.Name)
				}
			}
		}
		if len(batches) == 0 {
			t.Fatal("no batch spans")
		}
		linked, delivered := 0, 0
		for _, c := range tr.byID {
			a := attrs(c.Attributes)
			if strings.HasPrefix(c.Name, "chat ") && a["backfill.llm.outcome"] == "pending" {
				if len(c.Links) != 1 || batches[c.Links[0].SpanID].Name == "" || a["backfill.batch.id"] == "" {
					t.Fatalf("pending call %s links %v, want the span of its batch", c.SpanID, c.Links)
				}
				linked++
			}
			if strings.HasSuffix(c.Name, " delivered") {
				if len(c.Links) != 1 || batches[c.Links[0].SpanID].Name == "" {
					t.Fatalf("delivery %s links %v, want its submission", c.SpanID, c.Links)
				}
				delivered++
			}
		}
		t.Logf("batch mode: %d spans, %d batches, %d pending calls linked to theirs, %d deliveries", len(tr.byID), len(batches), linked, delivered)
		if linked == 0 || delivered == 0 || total(m, "backfill.llm.batches", false, map[string]string{"backfill.batch.state": "submitted"}) == 0 {
			t.Fatalf("%d pending calls linked, %d deliveries, batches counted %v", linked, delivered, m["backfill.llm.batches"])
		}
	})

	t.Run("no endpoint exports nothing", func(t *testing.T) {
		// Every other OTEL_* variable is set: only the endpoint turns exporting on.
		off := map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_TRACES_SAMPLER": "always_on",
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=unused"}
		res, _, id := f.run(t, filepath.Join(f.dir, "off.db"), off, priced(s.URL)...)
		if res.Code != 0 && res.Code != 3 {
			t.Fatalf("exit %d\n%s", res.Code, harness.Tail(res.Stderr, 20))
		}
		if strings.Contains(res.Stderr, "exporting telemetry") {
			t.Fatal("the run without an endpoint started an exporter")
		}
		// A later run that exports, once in the collector's files, bounds the wait for anything
		// the first might have sent.
		_, _, marker := f.run(t, filepath.Join(f.dir, "off.db"), http, priced(s.URL)...)
		f.await(t, marker)
		if n := len(spansOf(t, f.col.Traces, id)); n != 0 {
			t.Fatalf("%d spans of the run without an endpoint arrived", n)
		}
		if n := len(metricsOf(t, f.col.Metrics, id)); n != 0 {
			t.Fatalf("%d metrics of the run without an endpoint arrived", n)
		}
	})
}

// checkTree checks the span tree of an online run against its report.
func checkTree(t *testing.T, tr *tree, rep report.Report) {
	t.Helper()
	if tr.root.Name != "run demo" || len(tr.traces) != 1 {
		t.Fatalf("root %q, %d traces: want one trace under run demo", tr.root.Name, len(tr.traces))
	}
	ra := attrs(tr.root.Attributes)
	if ra["backfill.job"] != "demo" || ra["backfill.run.outcome"] != "ok" || num(ra, "gen_ai.usage.input_tokens") != float64(rep.LLM.PromptTokens) {
		t.Fatalf("run span attributes %v", ra)
	}
	stagesSeen := map[string]span{}
	for _, s := range tr.children[tr.root.SpanID] {
		if strings.HasPrefix(s.Name, "stage ") {
			stagesSeen[strings.TrimPrefix(s.Name, "stage ")] = s
		}
	}
	var want []string
	for name := range rep.Stages {
		want = append(want, name)
	}
	if got := slices.Sorted(maps.Keys(stagesSeen)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Fatalf("stage spans %v, report stages %v", got, want)
	}
	requests, input, output, failed := 0.0, 0.0, 0.0, 0
	for name, st := range stagesSeen {
		sa := attrs(st.Attributes)
		keyed := sa["backfill.stage.key"] != "" || name == "ingest" // ingest has no key: its units hash their content
		if sa["backfill.stage"] != name || !keyed || num(sa, "backfill.stage.units") != float64(rep.Stages[name].Units) {
			t.Errorf("stage %s attributes %v", name, sa)
		}
		units := tr.children[st.SpanID]
		if name != "ingest" && name != "load" && countNamed(units, "unit ") != rep.Stages[name].Units {
			t.Errorf("stage %s: %d unit spans, %d units in the report", name, countNamed(units, "unit "), rep.Stages[name].Units)
		}
		for _, u := range units {
			if !strings.HasPrefix(u.Name, "unit ") {
				continue
			}
			ua := attrs(u.Attributes)
			if ua["backfill.unit"] == "" || ua["backfill.group"] == "" || ua["backfill.unit.fingerprint"] == "" {
				t.Fatalf("unit span attributes %v", ua)
			}
			if ua["backfill.unit.outcome"] == "failed" {
				failed++
				if u.Status.Code != 2 || ua["error.type"] != "invalid_answer" || u.Status.Message != "invalid_answer" || len(u.Events) != 0 {
					t.Fatalf("failed unit span: status %+v, error.type %q, %d events (no answer text on spans)", u.Status, ua["error.type"], len(u.Events))
				}
			}
			for _, c := range tr.children[u.SpanID] {
				ca := attrs(c.Attributes)
				switch {
				case strings.HasPrefix(c.Name, "chat "):
					if c.Name != "chat gpt-4o-mini" || ca["gen_ai.operation.name"] != "chat" || ca["gen_ai.provider.name"] != "openai" ||
						ca["gen_ai.prompt.name"] == "" || ca["server.address"] != "127.0.0.1" || c.Kind != 3 {
						t.Fatalf("chat span %s attributes %v", c.Name, ca)
					}
					output += num(ca, "gen_ai.usage.output_tokens")
				case strings.HasPrefix(c.Name, "embeddings "):
					if c.Name != "embeddings text-embedding-3-small" || ca["gen_ai.operation.name"] != "embeddings" {
						t.Fatalf("embeddings span %s attributes %v", c.Name, ca)
					}
				default:
					t.Fatalf("unexpected span %q under a unit", c.Name)
				}
				requests += num(ca, "backfill.llm.requests")
				input += num(ca, "gen_ai.usage.input_tokens")
			}
		}
	}
	if failed != rep.FailedUnits {
		t.Errorf("%d failed unit spans, %d failed units in the report", failed, rep.FailedUnits)
	}
	if requests != float64(rep.LLM.Calls) || input != float64(rep.LLM.PromptTokens) || output != float64(rep.LLM.CompletionTokens) {
		t.Errorf("call spans: %v requests, %v/%v tokens; report: %d requests, %d/%d tokens", requests, input, output,
			rep.LLM.Calls, rep.LLM.PromptTokens, rep.LLM.CompletionTokens)
	}
	load := stagesSeen["load"]
	rows := 0.0
	for _, b := range tr.under(load, "upsert_memory") {
		ba := attrs(b.Attributes)
		if ba["gen_ai.operation.name"] != "upsert_memory" || ba["db.system.name"] != "falkordb" || ba["gen_ai.memory.store.id"] == "" {
			t.Fatalf("sink batch attributes %v", ba)
		}
		rows += num(ba, "gen_ai.memory.record.count")
	}
	if rows != float64(rep.Load.Nodes+rep.Load.Edges) || len(tr.under(load, "upsert_memory")) != rep.Load.Batches {
		t.Errorf("sink batch spans: %d with %v rows; report: %d batches of %d rows", len(tr.under(load, "upsert_memory")), rows,
			rep.Load.Batches, rep.Load.Nodes+rep.Load.Edges)
	}
}

// checkTotals checks that the metric totals equal the report's.
func checkTotals(t *testing.T, m map[string][]series, rep report.Report) {
	t.Helper()
	for _, c := range []struct {
		name   string
		counts bool
		attrs  map[string]string
		want   float64
	}{
		{"gen_ai.client.token.usage", false, map[string]string{"gen_ai.token.type": "input"}, float64(rep.LLM.PromptTokens)},
		{"gen_ai.client.token.usage", false, map[string]string{"gen_ai.token.type": "output"}, float64(rep.LLM.CompletionTokens)},
		{"backfill.llm.tokens", false, map[string]string{"gen_ai.token.type": "input"}, float64(rep.LLM.PromptTokens)},
		{"backfill.llm.tokens", false, map[string]string{"gen_ai.token.type": "output"}, float64(rep.LLM.CompletionTokens)},
		{"backfill.llm.tokens", false, map[string]string{"gen_ai.token.type": "cached_input"}, float64(rep.LLM.CachedPromptTokens)},
		{"backfill.llm.requests", false, nil, float64(rep.LLM.Calls)},
		{"backfill.llm.cache_hits", false, nil, float64(rep.LLM.CacheHits)},
		{"backfill.llm.retries", false, nil, float64(rep.LLM.Retries)},
		{"backfill.llm.invalid_answers", false, nil, float64(rep.LLM.InvalidAnswers)},
		{"backfill.llm.cost", false, nil, rep.LLM.CostUSD},
		{"backfill.runs", false, map[string]string{"backfill.job": "demo", "backfill.run.outcome": "ok"}, 1},
	} {
		if got := total(m, c.name, c.counts, c.attrs); math.Abs(got-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("%s %v = %v, report %v", c.name, c.attrs, got, c.want)
		}
	}
	if rep.LLM.CostUSD == 0 {
		t.Error("the run cost nothing: the totals check no cost")
	}
	for name, st := range rep.Stages {
		done := total(m, "backfill.units", false, map[string]string{"backfill.stage": name, "backfill.unit.outcome": "done"})
		failed := total(m, "backfill.units", false, map[string]string{"backfill.stage": name, "backfill.unit.outcome": "failed"})
		skipped := total(m, "backfill.units", false, map[string]string{"backfill.stage": name, "backfill.unit.outcome": "skipped"})
		if done+failed != float64(st.Units) || failed != float64(st.Failed) || skipped != float64(st.Skipped) {
			t.Errorf("stage %s: units done %v failed %v skipped %v; report %+v", name, done, failed, skipped, st)
		}
	}
	if rep.Load != nil {
		if got := total(m, "backfill.sink.rows", false, nil); got != float64(rep.Load.Nodes+rep.Load.Edges) {
			t.Errorf("sink rows %v, report %d", got, rep.Load.Nodes+rep.Load.Edges)
		}
		if total(m, "backfill.sink.verifications", false, map[string]string{"backfill.sink.verification": "ok"}) == 0 {
			t.Error("no verification counted")
		}
	}
}

func countNamed(spans []span, prefix string) int {
	n := 0
	for _, s := range spans {
		if strings.HasPrefix(s.Name, prefix) {
			n++
		}
	}
	return n
}
