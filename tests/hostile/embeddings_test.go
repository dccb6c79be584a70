package hostile

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// stubSets point a job's LLM at chat and its embedder at embed (base URLs of stubs).
func stubSets(chat, embed string) []string {
	return []string{"--set", "llm.provider=openai", "--set", "llm.base_url=" + chat, "--set", "llm.model=stub",
		"--set", "embedder.provider=openai", "--set", "embedder.base_url=" + embed, "--set", "embedder.model=stub"}
}

// startStub runs `backfill llm-stub` with flags until the test ends and returns its base URL.
func startStub(t *testing.T, flags ...string) string {
	t.Helper()
	return harness.LLMStub(t, backfill(t), flags...)
}

// TestEmbeddingsThatStayBad: an embeddings endpoint whose every answer is malformed (the stub's
// malformed fault, on every attempt) fails the units that embed (resolve's name and fact
// embeddings, the embed stage, community names), not the run: exit 3, the units in
// <checkpoint>.failed.jsonl; the next run against a sound endpoint completes them and leaves the
// export of a run that never met the fault.
func TestEmbeddingsThatStayBad(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), conversation())
	clean := startStub(t)
	broken := startStub(t, "--fault-rate", "1", "--faults", "malformed", "--max-faults", "-1")
	extra := "limits:\n  max_failed_ratio: 1\n"

	refJob := offlineJob(t, dir, "ref", in, filepath.Join(dir, "ref.db"), extra)
	want(t, run(t, dir, nil, append([]string{"run", refJob}, stubSets(clean, clean)...)...), 0)

	cp := filepath.Join(dir, "bad.db")
	job := offlineJob(t, dir, "bad", in, cp, extra)
	res := run(t, dir, nil, append([]string{"run", job}, stubSets(clean, broken)...)...)
	want(t, res, 3, "units failed")
	stages := map[string]int{}
	f, err := os.Open(cp + ".failed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var u struct{ Stage, Unit, Reason string }
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			t.Fatal(err)
		}
		stages[u.Stage]++
		t.Logf("failed unit %s %s: %s", u.Stage, u.Unit, u.Reason)
	}
	f.Close()
	for _, s := range []string{"resolve", "embed", "community"} {
		if stages[s] == 0 {
			t.Errorf("no %s unit failed (failed units by stage: %v)", s, stages)
		}
	}

	// Against a sound endpoint the same command completes the failed units.
	res = run(t, dir, nil, append([]string{"run", job}, stubSets(clean, clean)...)...)
	want(t, res, 0)
	refOut, out := filepath.Join(dir, "ref-export"), filepath.Join(dir, "export")
	if err := harness.Export(t.Context(), backfill(t), refJob, refOut); err != nil {
		t.Fatal(err)
	}
	if err := harness.Export(t.Context(), backfill(t), job, out); err != nil {
		t.Fatal(err)
	}
	if err := harness.CompareDirs(refOut, out); err != nil {
		t.Errorf("after the retry, the export differs from a run that never met the fault: %v", err)
	}
}
