package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the checkpoint store's driver, to reset a copy for the replay

	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// runJob runs `backfill run JOB --report … ARGS…` and returns the report; a non-zero exit is an
// error.
func runJob(ctx context.Context, bin, job, dir string, o harness.Options, args ...string) (*report.Report, harness.Result, error) {
	rep := filepath.Join(dir, fmt.Sprintf("report-%d.json", time.Now().UnixNano()))
	res, err := harness.Run(ctx, bin, append([]string{"run", job, "--report", rep}, args...), o)
	if err != nil {
		return nil, res, err
	}
	if res.Code != 0 {
		return nil, res, fmt.Errorf("backfill run %s: exit %d: %s", job, res.Code, lastLine(res.Stderr))
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		return nil, res, fmt.Errorf("reading report: %w", err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, res, fmt.Errorf("reading report: %w", err)
	}
	return &r, res, nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}

func stagesOf(r *report.Report) map[string]Stage {
	out := map[string]Stage{}
	for k, v := range r.Stages {
		out[k] = Stage{Units: v.Units, Skipped: v.Skipped, Seconds: v.Seconds}
	}
	return out
}

// locomoRun is the stub run's job and checkpoint, which the replay reuses.
type locomoRun struct {
	job, checkpoint, export string
}

// benchLoCoMo runs LoCoMo through the stub at a fixed latency.
func benchLoCoMo(ctx context.Context, bin, dir, dataset string, latency time.Duration, concurrency int) (*LoCoMoResult, locomoRun, error) {
	s, err := harness.StartStub(stub.Options{Latency: latency, PrefixCache: stub.OpenAIPrefixCache}, nil)
	if err != nil {
		return nil, locomoRun{}, err
	}
	defer s.Close()
	run := locomoRun{checkpoint: filepath.Join(dir, "locomo.db"), export: filepath.Join(dir, "locomo-export")}
	run.job = filepath.Join(dir, "locomo.yaml")
	src := fmt.Sprintf("path: %s\n    format: locomo", dataset)
	if err := os.WriteFile(run.job, []byte(harness.StubJobYAML("bench-locomo", run.checkpoint, src, s.URL, concurrency)), 0o644); err != nil {
		return nil, run, err
	}
	rep, _, err := runJob(ctx, bin, run.job, dir, harness.Options{})
	if err != nil {
		return nil, run, err
	}
	if err := export(ctx, bin, run.job, run.checkpoint, run.export); err != nil {
		return nil, run, err
	}
	st, err := s.Stats()
	if err != nil {
		return nil, run, err
	}
	n := float64(rep.Episodes)
	r := &LoCoMoResult{Episodes: rep.Episodes, LatencyMS: float64(latency) / float64(time.Millisecond), Concurrency: concurrency,
		Seconds: rep.Seconds, Calls: rep.LLM.Calls, PromptTokens: rep.LLM.PromptTokens, CompletionTokens: rep.LLM.CompletionTokens,
		CallsPerEpisode: float64(rep.LLM.Calls) / n, PromptTokensPerEpisode: float64(rep.LLM.PromptTokens) / n,
		CachedPromptTokensPerEpisode: float64(rep.LLM.CachedPromptTokens) / n, SharedPrefixTokensPerEpisode: float64(st.PrefixSharedTokens) / n,
		PrefixCache: stub.OpenAIPrefixCache, ExtractUnits: rep.ExtractUnits,
		CompletionTokensPerEpisode: float64(rep.LLM.CompletionTokens) / n,
		CeilingCallsPerSec:         float64(concurrency) / latency.Seconds(), StubMaxInFlight: st.MaxInFlight, StubRepeated: st.Repeated,
		Stages: stagesOf(rep), CallsByStage: map[string]int{}, TokensByStage: map[string][2]int{}}
	var llmSeconds float64
	for stage, u := range rep.LLMByStage {
		r.CallsByStage[stage] = u.Calls
		r.TokensByStage[stage] = [2]int{u.PromptTokens, u.CompletionTokens}
		if u.Calls > 0 {
			llmSeconds += rep.Stages[stage].Seconds
		}
	}
	if sec := rep.Stages["extract"].Seconds; sec > 0 {
		r.ExtractCallsPerSec = float64(rep.LLMByStage["extract"].Calls) / sec
	}
	if llmSeconds > 0 {
		r.LLMStagesCallsPerSec = float64(rep.LLM.Calls) / llmSeconds
	}
	return r, run, nil
}

// export writes the job's Parquet export.
func export(ctx context.Context, bin, job, checkpoint, out string) error {
	res, err := harness.Run(ctx, bin, []string{"export", job, "--checkpoint", checkpoint, "--format", "parquet", "--out", out}, harness.Options{})
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("backfill export: exit %d: %s", res.Code, lastLine(res.Stderr))
	}
	return nil
}

// benchReplay copies the LoCoMo checkpoint, keeps its episodes and LLM cache, removes every
// stage's outputs and unit records, and runs the job again with the stub shut down (its
// address refuses connections, so any call not answered by the cache fails the run).
func benchReplay(ctx context.Context, bin, dir string, run locomoRun) (*ReplayResult, error) {
	cp := filepath.Join(dir, "replay.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := copyFile(run.checkpoint+suffix, cp+suffix); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	if err := resetStages(ctx, cp); err != nil {
		return nil, err
	}
	job := filepath.Join(dir, "replay.yaml")
	b, err := os.ReadFile(run.job)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(job, []byte(strings.Replace(string(b), run.checkpoint, cp, 1)), 0o644); err != nil {
		return nil, err
	}
	rep, _, err := runJob(ctx, bin, job, dir, harness.Options{})
	if err != nil {
		return nil, err
	}
	r := &ReplayResult{Episodes: rep.Episodes, Seconds: rep.Seconds, LLMCalls: rep.LLM.Calls, CacheHits: rep.LLM.CacheHits,
		Stages: stagesOf(rep)}
	if rep.Seconds > 0 {
		r.EpisodesPerSec = float64(rep.Episodes) / rep.Seconds
	}
	out := filepath.Join(dir, "replay-export")
	if err := export(ctx, bin, job, cp, out); err != nil {
		return nil, err
	}
	r.ExportEqual = harness.CompareDirs(run.export, out) == nil
	noop, _, err := runJob(ctx, bin, job, dir, harness.Options{})
	if err != nil {
		return nil, err
	}
	r.NoopSeconds = noop.Seconds
	return r, nil
}

// resetStages deletes every table's rows of a checkpoint except the staged episodes, the
// quarantine, the LLM cache and the store's meta data, so every stage runs again.
func resetStages(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("listing tables of %s: %w", path, err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("listing tables of %s: %w", path, err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	keep := map[string]bool{"meta": true, "episodes": true, "group_ids": true, "quarantine": true, "llm_cache": true}
	for _, t := range tables {
		if keep[t] {
			continue
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM "`+t+`"`); err != nil {
			return fmt.Errorf("resetting %s of %s: %w", t, path, err)
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return out.Close()
}
