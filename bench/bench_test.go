package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/providers/stub"
)

var update = flag.Bool("update", false, "rewrite testdata/results.golden.md")

func TestSynth(t *testing.T) {
	var a, b, c bytes.Buffer
	for _, x := range []struct {
		buf  *bytes.Buffer
		seed uint64
	}{{&a, 1}, {&b, 1}, {&c, 2}} {
		if err := Synth(x.buf, 1000, 300, x.seed); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the same seed gave different input")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("another seed gave the same input")
	}
	groups := map[string]int{}
	sc := bufio.NewScanner(&a)
	lines := 0
	for sc.Scan() {
		var e synthEpisode
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		if _, err := time.Parse(time.RFC3339, e.ReferenceTime); err != nil || e.Content == "" || e.Speaker == "" {
			t.Fatalf("line %d: %+v", lines+1, e)
		}
		groups[e.GroupID]++
		lines++
	}
	if lines != 1000 || len(groups) != 4 || groups["g000000"] != 300 || groups["g000003"] != 100 {
		t.Fatalf("%d lines in groups %v; want 1000 in 300, 300, 300, 100", lines, groups)
	}
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkPropagate1M-2   	       1	 432500000 ns/op	      4963 communities	        67.50 peak-RSS-MiB	64580000 B/op	   27172 allocs/op
BenchmarkNeo4jLoad/entities-2         	       1	2000000000 ns/op	      5000 rows/s
BenchmarkBroken-2  notanumber
PASS
ok  	github.com/tkgraph/backfill/stages/community	2.1s
`
	got := parseBench(out)
	tests := []struct {
		name, unit string
		want       float64
	}{
		{"BenchmarkPropagate1M", "ns/op", 432500000},
		{"BenchmarkPropagate1M", "communities", 4963},
		{"BenchmarkPropagate1M", "peak-RSS-MiB", 67.5},
		{"BenchmarkPropagate1M", "allocs/op", 27172},
		{"BenchmarkNeo4jLoad/entities", "rows/s", 5000},
	}
	for _, tt := range tests {
		if v, ok := got[tt.name][tt.unit]; !ok || v != tt.want {
			t.Errorf("%s %s = %v (%v), want %v", tt.name, tt.unit, v, ok, tt.want)
		}
	}
	if len(got) != 2 {
		t.Errorf("parsed %d benchmarks, want 2: %v", len(got), got)
	}
}

func TestExportedURI(t *testing.T) {
	tests := []struct{ out, want string }{
		{"export BACKFILL_NEO4J_URI=bolt://127.0.0.1:7687\n", "bolt://127.0.0.1:7687"},
		{"neo4j.sh: running\n  export BACKFILL_NEO4J_URI='bolt://h:1'\n", "bolt://h:1"},
		{"neo4j.sh: stopped\n", ""},
	}
	for _, tt := range tests {
		if got := exportedURI(tt.out, "BACKFILL_NEO4J_URI"); got != tt.want {
			t.Errorf("exportedURI(%q) = %q, want %q", tt.out, got, tt.want)
		}
	}
}

// TestResetStages checks that the replay's reset keeps episodes and the LLM cache and removes
// every unit record, so a replay runs every stage again from the cache.
func TestResetStages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "c.db")
	s, err := checkpoints.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ep := graph.Episode{UUID: graph.EpisodeID("g", "k"), GroupID: "g", Name: "n", Source: graph.SourceText, Content: "x",
		ReferenceTime: at, RecordKey: "k"}
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep}, at); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "key", cache.Entry{Namespace: "extract", Response: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := s.CommitUnit(ctx, "extract", ep.UUID, "fp", nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := resetStages(ctx, path); err != nil {
		t.Fatal(err)
	}
	s, err = checkpoints.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, _ := s.CountEpisodes(ctx)
	_, cached, _ := s.Get(ctx, "key")
	counts, _ := s.StageCounts(ctx)
	if n != 1 || !cached || len(counts) != 0 {
		t.Fatalf("after the reset: %d episodes, cached %v, units %v; want 1, true, none", n, cached, counts)
	}
}

// TestMarkdown renders a fixed result set against testdata/results.golden.md (-update rewrites it).
func TestMarkdown(t *testing.T) {
	r := &Results{
		Machine: Machine{Date: "2026-01-01 00:00 UTC", CPUs: 2, GoVersion: "go1.26", OS: "linux", Arch: "amd64"},
		LoCoMo: &LoCoMoResult{Episodes: 100, LatencyMS: 50, Concurrency: 10, Seconds: 12.5, Calls: 150, PromptTokens: 150000,
			CompletionTokens: 3000, CallsPerEpisode: 1.5, PromptTokensPerEpisode: 1500, CompletionTokensPerEpisode: 30,
			CeilingCallsPerSec: 200, ExtractCallsPerSec: 180, LLMStagesCallsPerSec: 170, StubMaxInFlight: 10,
			CachedPromptTokensPerEpisode: 0, SharedPrefixTokensPerEpisode: 700, PrefixCache: stub.OpenAIPrefixCache,
			ExtractUnits:  map[string]int{"asked": 90, "chitchat": 10},
			Stages:        map[string]Stage{"extract": {Units: 100, Seconds: 10}, "ingest": {Units: 100, Seconds: 0.1}},
			CallsByStage:  map[string]int{"extract": 150},
			TokensByStage: map[string][2]int{"extract": {150000, 3000}}},
		Replay: &ReplayResult{Episodes: 100, Seconds: 0.5, EpisodesPerSec: 200, CacheHits: 150, ExportEqual: true,
			Stages: map[string]Stage{"ingest": {Seconds: 0.1}, "extract": {Seconds: 0.3}}, NoopSeconds: 0.2},
		Eval: &EvalResult{Commands: []string{"backfill run jobs/examples/gold.yaml --checkpoint gold.db", "backfill eval jobs/examples/gold.yaml --checkpoint gold.db --gold examples/gold/gold.yaml"},
			LoCoMoHealth: &evaluation.Health{Episodes: 100, Entities: 20, Facts: 10, FactsPerEpisode: 0.1, ValidAtShare: 1},
			LoCoMo: &evaluation.RetrievalReport{Dataset: "locomo", Ks: []int{5, 10}, MinCosine: 0.6,
				Categories: []evaluation.Recall{{Category: "all", Questions: 4, WithEvidence: 4, WithAnswer: 2, EvidenceHits: []int{1, 2},
					SessionHits: []int{2, 3}, AnswerHits: []int{0, 1}, EvidenceRecall: []float64{0.25, 0.5}, SessionRecall: []float64{0.5, 0.75},
					AnswerRecall: []float64{0, 0.5}}},
				Baselines: []evaluation.ModeRecall{
					{Mode: evaluation.ModeFactsEpisodes, Categories: []evaluation.Recall{{Category: "all", Questions: 4, WithEvidence: 4,
						WithAnswer: 2, EvidenceHits: []int{3, 4}, SessionHits: []int{4, 4}, AnswerHits: []int{1, 2}}}},
					{Mode: evaluation.ModeEpisodesBM25, Categories: []evaluation.Recall{{Category: "all", Questions: 4, WithEvidence: 4,
						WithAnswer: 2, EvidenceHits: []int{2, 3}, SessionHits: []int{3, 4}, AnswerHits: []int{1, 1}}}},
				}},
			Gold: []GoldScore{{Job: "jobs/examples/gold.yaml", Report: &evaluation.GoldReport{GoldFacts: 10, GraphFacts: 8, Matched: 6,
				Precision: 0.75, Recall: 0.6, F1: 0.667, ValidAtCorrect: 5, InvalidAtCorrect: 6, IntervalCorrect: 5, MatchedOpen: 4,
				MatchedClosed: 2, WronglyClosed: 1}}}},
		Memory: []MemoryResult{
			{Mode: "all stages", Episodes: 1000, GroupSize: 500, Seconds: 3, PeakRSSMiB: 50, PeakWALMiB: 12, StoreMiB: 30, StageRSS: map[string]float64{"extract": 40, "resolve": 50}},
			{Mode: "all stages", Episodes: 3000, GroupSize: 500, Seconds: 9, PeakRSSMiB: 52},
			{Mode: "ingest (plan)", Episodes: 1000, GroupSize: 500, Seconds: 1, PeakRSSMiB: 30},
		},
		Propagate: &GoBench{Command: "go test -bench X", Metrics: map[string]map[string]float64{"BenchmarkX": {"ns/op": 4.3e8, "sweeps": 24}}},
		Bolt: &GoBench{Command: "go test -bench Y", Metrics: map[string]map[string]float64{
			"BenchmarkNeo4jLoad/entities/embeddings=true": {"rows": 10000, "rows/s": 7500, "ceiling-rows/s": 8800, "pct-of-ceiling": 85.2,
				"ceiling-schema-rows/s": 7900, "pct-of-ceiling-schema": 94.9, "vector-index-s": 9.5, "pct-of-ceiling-indexed": 37.4},
			"BenchmarkNeo4jLoad/facts/embeddings=false": {"rows": 100000, "rows/s": 27000, "ceiling-rows/s": 48000, "pct-of-ceiling": 56.3,
				"ceiling-schema-rows/s": 31000, "pct-of-ceiling-schema": 87.1, "vector-index-s": 0.11, "pct-of-ceiling-indexed": 56.2},
		}},
		BoltCeiling: &GoBench{Command: "go test -bench Z", Metrics: map[string]map[string]float64{
			"BenchmarkNeo4jCeiling/entities/embeddings=true/batch=2000/sessions=1/embedding=map":       {"rows/s": 6000},
			"BenchmarkNeo4jCeiling/entities/embeddings=true/batch=2000/sessions=2/embedding=procedure": {"rows/s": 8000},
			"BenchmarkNeo4jCeiling/facts/embeddings=false/batch=2000/sessions=2/embedding=procedure":   {"rows/s": 46000},
		}},
		FalkorDB: &GoBench{Command: "go test -bench F", Metrics: map[string]map[string]float64{
			"BenchmarkFalkorDBLoad/entities/embeddings=true/sessions=2": {"rows": 10000, "rows/s": 700, "ceiling-rows/s": 800, "pct-of-ceiling": 87.5},
		}},
		FalkorDBCeiling: &GoBench{Command: "go test -bench G", Metrics: map[string]map[string]float64{
			"BenchmarkFalkorDBCeiling/entities/embeddings=true/batch=2000/sessions=2": {"rows/s": 800},
		}},
		Errors: []string{"memory: something failed"},
		Sync: &SyncResult{Episodes: 100, LatencyMS: 50, Concurrency: 10, Runs: []SyncRun{
			{Name: "local", Seconds: 30},
			{Name: "s3, every 10 s", Every: "10", Seconds: 31, Snapshots: 9, MeanSeconds: 0.3, MaxSeconds: 0.5, UploadedBytes: 9e6, LastBytes: 12e6},
		}, StoreBytes: 12e6, UploadedBytes: 3.2e6, SnapshotSeconds: 0.31, Snapshots: 3, RestoreSeconds: 0.2, Note: "loopback"},
		Telemetry: &TelemetryResult{Episodes: 100, LatencyMS: 50, Concurrency: 10, Runs: []TelemetryRun{
			{Job: "stub", Export: exportOff, Seconds: 30, CPUSeconds: 10, Load1: 0.5},
			{Job: "stub", Export: exportAll, Seconds: 30.3, CPUSeconds: 10.4, Spans: 2000, Load1: 0.6},
			{Job: "stub", Export: exportMetrics, Seconds: 30.1, CPUSeconds: 10.1, Load1: 0.6},
			{Job: "replay", Export: exportOff, Seconds: 4, CPUSeconds: 5, Load1: 0.4},
			{Job: "replay", Export: exportAll, Seconds: 4.2, CPUSeconds: 5.5, Spans: 1800, Load1: 0.4},
		}},
		Tokens: &TokensResult{PrefixCache: stub.OpenAIPrefixCache, Runs: []LeverRun{
			{Name: "two calls", Settings: []string{"stages.extract.mode=two_call"}, Episodes: 100, Calls: 150, PromptTokens: 180000,
				CachedPromptTokens: 90000, SharedPrefixTokens: 100000, ExtractCalls: 140, ExtractPromptTokens: 170000,
				ExtractUnits: map[string]int{"asked": 100}, Facts: 7,
				LoCoMo: &evaluation.Recall{Category: "all", EvidenceRecall: []float64{0.1, 0.2, 0.3}, AnswerRecall: []float64{0, 0.1, 0.2}},
				Gold:   &evaluation.GoldReport{Precision: 0.9, Recall: 0.8, F1: 0.847}},
			{Name: "the defaults", Episodes: 100, Calls: 95, PromptTokens: 85000, ExtractCalls: 90, ExtractPromptTokens: 80000,
				ExtractUnits: map[string]int{"asked": 90, "chitchat": 10}, Facts: 7,
				LoCoMo: &evaluation.Recall{Category: "all", EvidenceRecall: []float64{0.1, 0.25, 0.3}, AnswerRecall: []float64{0, 0.1, 0.2}},
				Gold:   &evaluation.GoldReport{Precision: 0.9, Recall: 0.8, F1: 0.847}},
		}, Gate: &ReferenceGate{Episodes: 100, Asked: 90, NoReference: 8, SavedTokens: 800}},
		Tickets: &TicketsResult{Records: 46, DeclaredSame: true, DeclaredFacts: 48, Runs: []TicketsRun{
			{Name: "none", Options: "json: {drop_nulls: false}", BodyTokensPerRecord: 2785, ExtractCallsPerRecord: 2,
				ExtractTokensRecord: 29727, CallsPerRecord: 2.6, PromptTokensPerRecord: 29900, Facts: 40},
			{Name: "all (+ text_fields)", Options: "json: {drop: [x]}", BodyTokensPerRecord: 184, ExtractCallsPerRecord: 0.72,
				ExtractTokensRecord: 1054, CallsPerRecord: 1.8, PromptTokensPerRecord: 1372, Facts: 59},
			{Name: "off", Options: "stages.extract.llm: off", BodyTokensPerRecord: 184, CallsPerRecord: 0.7, PromptTokensPerRecord: 200, Facts: 48},
		}},
	}
	var b strings.Builder
	r.markdown(&b)
	p := filepath.Join("testdata", "results.golden.md")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("reading golden file (run with -update): %v", err)
	}
	if b.String() != string(want) {
		t.Errorf("results.md differs from %s; got:\n%s", p, b.String())
	}
}

// TestWriteKeepsSections: rewriting results.md from results.json keeps the sections other
// tools wrote between their marker lines, and nothing else of the old file.
func TestWriteKeepsSections(t *testing.T) {
	dir := t.TempDir()
	old := "# old\n\nstale table\n\n<!-- eval-local -->\n## eval-local\n\n| a |\n<!-- /eval-local -->\n\ntext\n<!-- x -->\nunclosed\n"
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Results{}
	if err := r.write(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasSuffix(got, "\n<!-- eval-local -->\n## eval-local\n\n| a |\n<!-- /eval-local -->\n") ||
		strings.Contains(got, "stale table") || strings.Contains(got, "unclosed") {
		t.Errorf("results.md:\n%s", got)
	}
}

// TestMeasureKeepsAFailedStepsResult: a step that fails keeps its earlier result and date beside
// its error; a step that succeeds replaces them and clears its old error.
func TestMeasureKeepsAFailedStepsResult(t *testing.T) {
	old := &ReplayResult{Episodes: 5882, Seconds: 2.5}
	now := time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		fail      bool
		want      *ReplayResult
		wantDate  string
		wantError bool
	}{
		{"failed", true, old, "2026-12-07 21:56 UTC", true},
		{"succeeded", false, &ReplayResult{Episodes: 5882, Seconds: 3.6}, "2026-12-08 00:00 UTC", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Results{Replay: old, Tokens: &TokensResult{}, Errors: []string{"replay: an old failure", "tokens: kept"},
				Measured: map[string]string{"replay": "2026-12-07 21:56 UTC", "tokens": "2026-12-07 23:06 UTC"}}
			err := r.measure("replay", now, func() error {
				if tc.fail {
					return errors.New("needs the locomo step first")
				}
				r.Replay = &ReplayResult{Episodes: 5882, Seconds: 3.6}
				return nil
			})
			if (err != nil) != tc.fail || r.Replay == nil || r.Replay.Seconds != tc.want.Seconds || r.Measured["replay"] != tc.wantDate ||
				r.Tokens == nil || r.Measured["tokens"] != "2026-12-07 23:06 UTC" {
				t.Fatalf("err %v, replay %+v measured %v; want %+v at %s", err, r.Replay, r.Measured, tc.want, tc.wantDate)
			}
			want := []string{"tokens: kept"}
			if tc.wantError {
				want = append(want, "replay: needs the locomo step first")
			}
			if !slices.Equal(r.Errors, want) {
				t.Errorf("errors %q, want %q", r.Errors, want)
			}
		})
	}
	// A step never measured before that fails leaves no date.
	r := &Results{}
	if err := r.measure("sync", now, func() error { return errors.New("no bucket") }); err == nil || r.Measured["sync"] != "" ||
		!slices.Equal(r.Errors, []string{"sync: no bucket"}) {
		t.Errorf("a first failure: %v, %+v", err, r)
	}
}
