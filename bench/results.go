package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/stages"
)

// Results is everything one `make bench` measured (bench/results.json).
type Results struct {
	Machine   Machine        `json:"machine"`
	LoCoMo    *LoCoMoResult  `json:"locomo_stub,omitempty"`
	Replay    *ReplayResult  `json:"cached_replay,omitempty"`
	Eval      *EvalResult    `json:"eval,omitempty"`
	Memory    []MemoryResult `json:"memory,omitempty"`
	Propagate *GoBench       `json:"label_propagation_1m,omitempty"`
	Bolt      *GoBench       `json:"bolt_load,omitempty"`
	// BoltCeiling is the plain driver's configurations (BenchmarkNeo4jCeiling).
	BoltCeiling *GoBench `json:"bolt_ceiling,omitempty"`
	// FalkorDB is the load into FalkorDB against a plain client (BenchmarkFalkorDBLoad), and
	// FalkorDBCeiling the plain client's configurations (BenchmarkFalkorDBCeiling).
	FalkorDB        *GoBench         `json:"falkordb_load,omitempty"`
	FalkorDBCeiling *GoBench         `json:"falkordb_ceiling,omitempty"`
	Tickets         *TicketsResult   `json:"tickets,omitempty"`
	Tokens          *TokensResult    `json:"tokens,omitempty"`
	Parquet         *GoBench         `json:"parquet_readers_1m,omitempty"`
	Sync            *SyncResult      `json:"checkpoint_sync,omitempty"`
	Telemetry       *TelemetryResult `json:"telemetry,omitempty"`
	Errors          []string         `json:"errors,omitempty"` // steps that failed, with why
	// Measured is when each step ran: with -merge, steps of earlier invocations keep theirs.
	Measured map[string]string `json:"measured,omitempty"`
}

// readResults loads dir/results.json; a missing file gives empty results.
func readResults(dir string) (*Results, error) {
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if errors.Is(err, os.ErrNotExist) {
		return &Results{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, "results.json"), err)
	}
	return &r, nil
}

// measure runs one step (run) with its earlier result and errors forgotten and its date set to
// now. When the step fails its error is recorded and its earlier result, with the date it was
// measured, is kept: a failed step measured nothing, so it erases nothing (with -merge, the
// result of an earlier invocation stays beside the error).
func (r *Results) measure(step string, now time.Time, run func() error) error {
	if r.Measured == nil {
		r.Measured = map[string]string{}
	}
	before := *r
	stamp, had := r.Measured[step]
	r.forget(step)
	r.Measured[step] = now.UTC().Format("2006-01-02 15:04 UTC")
	err := run()
	if err == nil {
		return nil
	}
	errs, measured := r.Errors, r.Measured
	*r = before
	r.Measured = measured
	if had {
		measured[step] = stamp
	} else {
		delete(measured, step)
	}
	r.Errors = append(errs, fmt.Sprintf("%s: %v", step, err))
	return err
}

// forget drops a step's earlier result and errors before it runs again.
func (r *Results) forget(step string) {
	switch step {
	case "locomo":
		r.LoCoMo = nil
	case "replay":
		r.Replay = nil
	case "eval":
		r.Eval = nil
	case "memory":
		r.Memory = nil
	case "propagate":
		r.Propagate = nil
	case "bolt":
		r.Bolt, r.BoltCeiling = nil, nil
	case "falkordb":
		r.FalkorDB, r.FalkorDBCeiling = nil, nil
	case "tickets":
		r.Tickets = nil
	case "tokens":
		r.Tokens = nil
	case "parquet":
		r.Parquet = nil
	case "sync":
		r.Sync = nil
	case "telemetry":
		r.Telemetry = nil
	}
	r.Errors = slices.DeleteFunc(r.Errors, func(e string) bool { return strings.HasPrefix(e, step+": ") })
}

// Machine describes where the numbers come from.
type Machine struct {
	Date      string `json:"date"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
}

// LoCoMoResult is LoCoMo through the stub at a fixed latency.
type LoCoMoResult struct {
	Episodes                   int     `json:"episodes"`
	LatencyMS                  float64 `json:"latency_ms"`
	Concurrency                int     `json:"concurrency"`
	Seconds                    float64 `json:"seconds"`
	Calls                      int     `json:"calls"` // chat and embedding requests
	PromptTokens               int     `json:"prompt_tokens"`
	CompletionTokens           int     `json:"completion_tokens"`
	CallsPerEpisode            float64 `json:"calls_per_episode"`
	PromptTokensPerEpisode     float64 `json:"prompt_tokens_per_episode"`
	CompletionTokensPerEpisode float64 `json:"completion_tokens_per_episode"`
	// CachedPromptTokensPerEpisode are those the stub reported cached under PrefixCache;
	// SharedPrefixTokensPerEpisode those an earlier request had sent first, with no minimum.
	CachedPromptTokensPerEpisode float64           `json:"cached_prompt_tokens_per_episode"`
	SharedPrefixTokensPerEpisode float64           `json:"shared_prefix_tokens_per_episode"`
	PrefixCache                  stub.PrefixCache  `json:"prefix_cache"`
	ExtractUnits                 map[string]int    `json:"extract_units,omitempty"` // asked, or why not
	CeilingCallsPerSec           float64           `json:"ceiling_calls_per_s"`     // concurrency ÷ latency
	ExtractCallsPerSec           float64           `json:"extract_calls_per_s"`
	LLMStagesCallsPerSec         float64           `json:"llm_stages_calls_per_s"` // all calls ÷ seconds of the stages that made calls
	StubMaxInFlight              int               `json:"stub_max_in_flight"`
	StubRepeated                 int64             `json:"stub_repeated"`
	Stages                       map[string]Stage  `json:"stages"`
	CallsByStage                 map[string]int    `json:"calls_by_stage"`
	TokensByStage                map[string][2]int `json:"tokens_by_stage"` // prompt, completion
}

// Stage is one stage's share of a run.
type Stage struct {
	Units   int     `json:"units"`
	Skipped int     `json:"skipped"`
	Seconds float64 `json:"seconds"`
}

// ReplayResult is the cached replay and the no-op resume.
type ReplayResult struct {
	Episodes       int              `json:"episodes"`
	Seconds        float64          `json:"seconds"`
	EpisodesPerSec float64          `json:"episodes_per_s"`
	LLMCalls       int              `json:"llm_calls"` // must be 0
	CacheHits      int              `json:"cache_hits"`
	ExportEqual    bool             `json:"export_equal"` // the replay's export equals the original's
	Stages         map[string]Stage `json:"stages"`
	NoopSeconds    float64          `json:"noop_resume_seconds"`
}

// MemoryResult is one synthetic run.
type MemoryResult struct {
	Mode       string             `json:"mode"` // "all stages" or "ingest (plan)"
	Episodes   int                `json:"episodes"`
	GroupSize  int                `json:"group_size"`
	Seconds    float64            `json:"seconds"`
	PeakRSSMiB float64            `json:"peak_rss_mib"`
	PeakWALMiB float64            `json:"peak_wal_mib"`                 // the checkpoint's -wal file, sampled
	StoreMiB   float64            `json:"store_mib,omitempty"`          // the checkpoint file at the end
	StageRSS   map[string]float64 `json:"stage_peak_rss_mib,omitempty"` // sampled every 100 ms
	Stages     map[string]Stage   `json:"stages,omitempty"`
}

// GoBench is one `go test -bench` run: its metrics by sub-benchmark, or why it has none.
type GoBench struct {
	Command string                        `json:"command"`
	Metrics map[string]map[string]float64 `json:"metrics,omitempty"` // benchmark → unit → value
	Note    string                        `json:"note,omitempty"`
}

// write saves results.json and results.md into dir.
func (r *Results) write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding results: %w", err)
	}
	if err := safefile.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n')); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	var md strings.Builder
	r.markdown(&md)
	path := filepath.Join(dir, "results.md")
	if old, err := os.ReadFile(path); err == nil {
		for _, sec := range keptSections(string(old)) {
			md.WriteString("\n" + sec + "\n")
		}
	}
	if err := safefile.WriteFile(path, []byte(md.String())); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// keptSection is a section of results.md that other tools write (scripts/eval_local.sh, the
// measurements of an issue): from a line "<!-- NAME -->" to the line "<!-- /NAME -->".
var keptSection = regexp.MustCompile(`(?ms)^<!-- ([a-z0-9-]+) -->$.*?^<!-- /([a-z0-9-]+) -->$`)

// keptSections returns the kept sections of a results.md, in order, so rewriting the file from
// results.json leaves them in place (at its end).
func keptSections(md string) []string {
	var out []string
	for _, m := range keptSection.FindAllStringSubmatch(md, -1) {
		if m[1] == m[2] {
			out = append(out, m[0])
		}
	}
	return out
}

// stageOrder lists the stages of a map in pipeline order.
func stageOrder[V any](m map[string]V) []string {
	rank := map[string]int{"": -1}
	for i, s := range stages.StepNames() {
		rank[s] = i
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, oki := rank[keys[i]]
		rj, okj := rank[keys[j]]
		if oki != okj {
			return oki
		}
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// sortedKeys returns a map's keys sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fprintf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }
