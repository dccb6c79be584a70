package main

import (
	"fmt"
	"io"
	"strings"
)

// markdown renders the results as readable tables.
func (r *Results) markdown(w io.Writer) {
	m := r.Machine
	fprintf(w, "# backfill benchmarks\n\n%s · %d CPUs · %s %s/%s. Measurements, not pass/fail thresholds. The LLM is\n"+
		"llm/stub or the in-process offline responder: their answers are a baseline for the mechanics,\nnot a measure of extraction quality.\n"+
		"This page holds current results; superseded runs live in git (`git log -p bench/results.md`).\n\n",
		m.Date, m.CPUs, m.GoVersion, m.OS, m.Arch)
	if steps := sortedKeys(r.Measured); len(steps) > 0 {
		var when []string
		for _, s := range steps {
			when = append(when, s+" "+r.Measured[s])
		}
		fprintf(w, "Measured: %s.\n\n", strings.Join(when, ", "))
	}
	if l := r.LoCoMo; l != nil {
		fprintf(w, "## LoCoMo through llm/stub (%.0f ms latency, concurrency %d)\n\n", l.LatencyMS, l.Concurrency)
		fprintf(w, "| episodes | seconds | LLM calls | calls/episode | prompt tokens/episode | cached/episode | shared prefix/episode | completion tokens/episode |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		fprintf(w, "| %d | %.1f | %d | %.2f | %.0f | %.0f | %.0f | %.1f |\n\n", l.Episodes, l.Seconds, l.Calls, l.CallsPerEpisode,
			l.PromptTokensPerEpisode, l.CachedPromptTokensPerEpisode, l.SharedPrefixTokensPerEpisode, l.CompletionTokensPerEpisode)
		if l.PrefixCache.Block > 0 {
			fprintf(w, "Default settings. Calls and tokens count every stage, chat and embeddings (tokens: the stub's UTF-8 bytes ÷ 4, the json_schema schema included). Cached: the prompt\n"+
				"tokens the stub reported cached under OpenAI's rule (prefixes of %d tokens or more, in blocks of %d); shared prefix: those an\n"+
				"earlier request had sent first, whatever their length. Extract units: %s.\n\n", l.PrefixCache.Min, l.PrefixCache.Block,
				kindsText(l.ExtractUnits))
		}
		fprintf(w, "Calls per second: extract %.1f, all LLM stages %.1f, against a ceiling of %.1f (concurrency ÷ latency);\n"+
			"peak in flight at the stub %d; repeated answers %d.\n\n", l.ExtractCallsPerSec, l.LLMStagesCallsPerSec,
			l.CeilingCallsPerSec, l.StubMaxInFlight, l.StubRepeated)
		fprintf(w, "| stage | units | seconds | calls | prompt tokens | completion tokens |\n|---|---:|---:|---:|---:|---:|\n")
		for _, s := range stageOrder(l.Stages) {
			st, tok := l.Stages[s], l.TokensByStage[s]
			fprintf(w, "| %s | %d | %.2f | %d | %d | %d |\n", s, st.Units, st.Seconds, l.CallsByStage[s], tok[0], tok[1])
		}
		fprintf(w, "\n")
	}
	if p := r.Replay; p != nil {
		fprintf(w, "## Cached replay (every stage again, every answer from the cache, stub shut down)\n\n")
		fprintf(w, "| episodes | seconds | episodes/s | LLM calls | cache hits | export equal | no-op resume (s) |\n|---:|---:|---:|---:|---:|---|---:|\n")
		fprintf(w, "| %d | %.1f | %.0f | %d | %d | %v | %.2f |\n\n", p.Episodes, p.Seconds, p.EpisodesPerSec, p.LLMCalls,
			p.CacheHits, p.ExportEqual, p.NoopSeconds)
		fprintf(w, "Stage seconds: %s.\n\n", stageSeconds(p.Stages))
	}
	if r.Eval != nil {
		evalMarkdown(w, r.Eval)
	}
	if len(r.Memory) > 0 {
		fprintf(w, "## Peak RSS on synthetic input (offline responder)\n\n")
		fprintf(w, "| mode | episodes | group size | seconds | peak RSS (MiB) | peak WAL (MiB) | store (MiB) | peak RSS by stage (MiB, sampled) |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
		for _, x := range r.Memory {
			var parts []string
			for _, s := range stageOrder(x.StageRSS) {
				name := s
				if name == "" {
					name = "startup"
				}
				parts = append(parts, fmt.Sprintf("%s %.0f", name, x.StageRSS[s]))
			}
			fprintf(w, "| %s | %d | %d | %.0f | %.1f | %s | %s | %s |\n", x.Mode, x.Episodes, x.GroupSize, x.Seconds, x.PeakRSSMiB,
				orDash(x.PeakWALMiB), orDash(x.StoreMiB), strings.Join(parts, ", "))
		}
		fprintf(w, "\n%s\n\n", flatness(r.Memory))
	}
	tokensMarkdown(w, r.Tokens)
	tickets(w, r.Tickets)
	goBench(w, "Label propagation on 1M facts (stages/community BenchmarkPropagate1M)", r.Propagate)
	boltTables(w, r.Bolt, r.BoltCeiling)
	falkordbTables(w, r.FalkorDB, r.FalkorDBCeiling)
	goBench(w, "Parquet input readers on 1M rows: parquet-go against arrow-go pqarrow (loaders BenchmarkParquetReaders)", r.Parquet)
	syncMarkdown(w, r.Sync)
	telemetryMarkdown(w, r.Telemetry)
	if len(r.Errors) > 0 {
		fprintf(w, "## Steps that failed\n\n")
		for _, e := range r.Errors {
			fprintf(w, "- %s\n", e)
		}
		fprintf(w, "\n")
	}
}

// tickets renders the ticket change log under each set of JSON record options.
func tickets(w io.Writer, t *TicketsResult) {
	if t == nil || len(t.Runs) == 0 {
		return
	}
	fprintf(w, "## Ticket change log: JSON record options (examples/tickets.jsonl through llm/stub)\n\n")
	fprintf(w, "%d issue-tracker webhook payloads (six tickets, two repositories), each option set in a fresh run "+
		"(`go run ./bench -only tickets -merge`). Per record: the tokens of the content the episode keeps, extraction calls and "+
		"prompt tokens, and every stage's requests and prompt tokens as the stub counted them (embeddings included).\n\n", t.Records)
	fprintf(w, "| options | content tokens/record | extract calls/record | extract prompt tokens/record | all calls/record | all prompt tokens/record | facts |\n")
	fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range t.Runs {
		fprintf(w, "| %s | %.0f | %.2f | %.0f | %.2f | %.0f | %d |\n", r.Name, r.BodyTokensPerRecord, r.ExtractCallsPerRecord,
			r.ExtractTokensRecord, r.CallsPerRecord, r.PromptTokensPerRecord, r.Facts)
	}
	base, all := t.Runs[0], TicketsRun{}
	for _, r := range t.Runs {
		if strings.HasPrefix(r.Name, "all (") {
			all = r
		}
	}
	if all.ExtractTokensRecord > 0 && all.PromptTokensPerRecord > 0 {
		fprintf(w, "\nWith every option (%s): extraction prompt tokens per record 1/%.0f of none, all prompt tokens 1/%.0f, "+
			"extraction calls per record %.2f instead of %.2f.\n", all.Name, base.ExtractTokensRecord/all.ExtractTokensRecord,
			base.PromptTokensPerRecord/all.PromptTokensPerRecord, all.ExtractCallsPerRecord, base.ExtractCallsPerRecord)
	}
	fprintf(w, "Declared facts (%d, with their intervals) are the same with the LLM asked about free text and with "+
		"`stages.extract.llm: off`: %v.\n\n", t.DeclaredFacts, t.DeclaredSame)
	for _, r := range t.Runs {
		fprintf(w, "- %s: %s\n", r.Name, r.Options)
	}
	fprintf(w, "\n")
}

// goBench renders one go-test benchmark.
func goBench(w io.Writer, title string, g *GoBench) {
	if g == nil {
		return
	}
	fprintf(w, "## %s\n\n`%s`\n\n", title, g.Command)
	if g.Note != "" {
		fprintf(w, "%s\n\n", g.Note)
	}
	for _, name := range sortedKeys(g.Metrics) {
		var parts []string
		for _, unit := range sortedKeys(g.Metrics[name]) {
			parts = append(parts, fmt.Sprintf("%s %s", num(g.Metrics[name][unit]), unit))
		}
		fprintf(w, "- %s: %s\n", name, strings.Join(parts, ", "))
	}
	if len(g.Metrics) > 0 {
		fprintf(w, "\n")
	}
}

// stageSeconds renders "ingest 0.2, extract 3.1, …".
func stageSeconds(st map[string]Stage) string {
	var parts []string
	for _, s := range stageOrder(st) {
		parts = append(parts, fmt.Sprintf("%s %.2f", s, st[s].Seconds))
	}
	return strings.Join(parts, ", ")
}

// flatness compares the peak RSS of the smallest and largest run of each mode.
func flatness(ms []MemoryResult) string {
	var lines []string
	byMode := map[string][]MemoryResult{}
	var modes []string
	for _, m := range ms {
		if byMode[m.Mode] == nil {
			modes = append(modes, m.Mode)
		}
		byMode[m.Mode] = append(byMode[m.Mode], m)
	}
	for _, mode := range modes {
		xs := byMode[mode]
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			if x.Episodes < lo.Episodes {
				lo = x
			}
			if x.Episodes > hi.Episodes {
				hi = x
			}
		}
		if lo.Episodes == hi.Episodes || lo.PeakRSSMiB == 0 {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %.0f× the input (%d → %d episodes), %.2f× the peak RSS (%.1f → %.1f MiB), %.1f× the time.",
			mode, float64(hi.Episodes)/float64(lo.Episodes), lo.Episodes, hi.Episodes, hi.PeakRSSMiB/lo.PeakRSSMiB,
			lo.PeakRSSMiB, hi.PeakRSSMiB, hi.Seconds/lo.Seconds))
	}
	return strings.Join(lines, "\n")
}

// orDash renders a size in MiB, or "–" when it was not measured.
func orDash(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

// num renders a metric compactly.
func num(v float64) string {
	switch {
	case v >= 1e6 || v != v:
		return fmt.Sprintf("%.4g", v)
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// kindsText writes counts by kind, "asked 5, chitchat 2", or "none".
func kindsText(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return orNone(strings.Join(parts, ", "))
}

// syncMarkdown renders what keeping the checkpoint in object storage costs.
func syncMarkdown(w io.Writer, s *SyncResult) {
	if s == nil {
		return
	}
	fprintf(w, "## Checkpoints in object storage (LoCoMo through llm/stub, %.0f ms latency, concurrency %d)\n\n", s.LatencyMS, s.Concurrency)
	if len(s.Runs) == 0 {
		fprintf(w, "%s\n\n", s.Note)
		return
	}
	fprintf(w, "| checkpoint | snapshot every (s) | wall seconds | snapshots | s per snapshot (mean / max) | uploaded (MB) |\n|---|---:|---:|---:|---|---:|\n")
	for _, r := range s.Runs {
		every, snaps := "–", "–"
		if r.Every != "" {
			every = r.Every
			snaps = fmt.Sprintf("%.2f / %.2f", r.MeanSeconds, r.MaxSeconds)
		}
		fprintf(w, "| %s | %s | %.1f | %d | %s | %.1f |\n", r.Name, every, r.Seconds, r.Snapshots, snaps, float64(r.UploadedBytes)/1e6)
	}
	fprintf(w, "\nThe finished store (%d episodes): a %.1f MB database, %.1f MB uploaded per snapshot (zstd), %.2f s per snapshot "+
		"(mean of %d at idle); restoring it on a fresh local copy took %.2f s. %s.\n\n", s.Episodes, float64(s.StoreBytes)/1e6,
		float64(s.UploadedBytes)/1e6, s.SnapshotSeconds, s.Snapshots, s.RestoreSeconds, s.Note)
}

// telemetryMarkdown renders what exporting the run's telemetry costs.
func telemetryMarkdown(w io.Writer, t *TelemetryResult) {
	if t == nil {
		return
	}
	fprintf(w, "## Telemetry export: OTLP on against off (LoCoMo through llm/stub, %.0f ms latency, concurrency %d)\n\n", t.LatencyMS, t.Concurrency)
	if len(t.Runs) == 0 {
		fprintf(w, "%s\n\n", t.Note)
		return
	}
	fprintf(w, "| job | export | wall seconds | CPU seconds | spans | load (1 min) at start |\n|---|---|---:|---:|---:|---:|\n")
	for _, r := range t.Runs {
		spans := "–"
		if r.Spans > 0 {
			spans = fmt.Sprint(r.Spans)
		}
		fprintf(w, "| %s | %s | %.1f | %.1f | %s | %.2f |\n", r.Job, r.Export, r.Seconds, r.CPUSeconds, spans, r.Load1)
	}
	fprintf(w, "\n")
	for _, job := range []string{"stub", "replay"} {
		for _, export := range []string{exportAll, exportMetrics} {
			if wall, cpu, ok := telemetryOverhead(t.Runs, job, export); ok {
				fprintf(w, "- %s (%d episodes), %s over OTLP/HTTP: %+.1f%% wall, %+.1f%% CPU (medians against the runs that export nothing).\n",
					job, t.Episodes, export, wall, cpu)
			}
		}
	}
	fprintf(w, "\nstub: every stage with the stub answering each call after the latency; replay: every stage again on a copy of the "+
		"checkpoint, every answer from the LLM cache (no latency to hide the cost: a worst case). The collector (scripts/otelcol.sh) "+
		"runs on the same 2 cores and its CPU is not counted in the run's.\n\n")
}
