package integrity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestVarExpansion: ${VAR} is expanded inside scalar values after parsing: a value holding
// " #" names the directory it names, a value holding a newline cannot inject job keys, a ${VAR}
// in a comment is text, and an unset variable is an error naming its line.
func TestVarExpansion(t *testing.T) {
	dir := t.TempDir()
	hashDir := filepath.Join(dir, "data #1")
	writeFile(t, filepath.Join(hashDir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "From the directory with a hash."))
	writeFile(t, filepath.Join(dir, "data", "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Bob", "From the wrong directory.")+
		line("g", "2024-03-02T09:00:00Z", "Bob", "Also from the wrong directory."))
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), `# Set ${UNSET_IN_COMMENT} before running.
name: ${NAME}
checkpoint: ${CP:-`+checkpoint+`}
record_time: reference
sources:
  - path: ${DIR}/in.jsonl # ${ALSO_UNSET}
`)
	name := "nightly\nllm: {provider: openai, base_url: 'http://127.0.0.1:1/v1', model: x}"
	report := filepath.Join(dir, "report.json")
	env := []string{"DIR=" + hashDir, "NAME=" + name}
	want(t, "run", run(t, []string{"run", job, "--report", report}, harness.Options{Env: env}), 0)
	if got := readReport(t, report)["job"]; got != name {
		t.Errorf("job name %q, want the variable's value %q as it is", got, name)
	}
	st := run(t, []string{"status", job}, harness.Options{Env: env})
	want(t, "status", st, 0)
	if !strings.Contains(st.Stdout, "episodes     1 in 1 groups") {
		t.Errorf("the job read another directory than %q:\n%s", hashDir, st.Stdout)
	}

	bad := writeFile(t, filepath.Join(dir, "bad.yaml"), "name: x\nsources:\n  - path: in.jsonl\n  - path: ${NOT_SET_ANYWHERE}/x.jsonl\n")
	want(t, "unset variable", run(t, []string{"run", bad}, harness.Options{}), 1, "line 4", "NOT_SET_ANYWHERE")
}

// TestLoadTimeValidation: invalid ontology names, temperatures and negative or out-of-range
// numbers fail the job at load time (exit 1 naming the key) before anything runs.
func TestLoadTimeValidation(t *testing.T) {
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
	cases := []struct{ yaml, key string }{
		{"ontology: {entity_types: [{name: Big Company}]}", "ontology.entity_types[0].name"},
		{"ontology: {entity_types: [{name: Person}, {name: PERSON}]}", "ontology.entity_types[1].name"},
		{"ontology: {entity_types: [{name: Community}]}", "ontology.entity_types[0].name"},
		{"ontology: {edge_types: [{name: 'WORKS AT'}]}", "ontology.edge_types[0].name"},
		{"ontology: {edge_types: [{name: WORKS_AT}, {name: works_at}]}", "ontology.edge_types[1].name"},
		{"ontology: {entity_types: [{name: Person, attributes: [name]}]}", "ontology.entity_types[0].attributes[0]"},
		{"llm: {temperature: .nan}", "llm.temperature"},
		{"llm: {temperature: 2.5}", "llm.temperature"},
		{"llm: {temperature: -0.5}", "llm.temperature"},
		{"llm: {max_attempts: -1}", "llm.max_attempts"},
		{"llm: {timeout_seconds: -3}", "llm.timeout_seconds"},
		{"embedder: {batch_size: -5}", "embedder.batch_size"},
		{"stages: {extract: {context: -1}}", "stages.extract.context"},
		{"stages: {temporal: {max_candidates: -1}}", "stages.temporal.max_candidates"},
		{"stages: {community: {min_size: -2}}", "stages.community.min_size"},
		{"limits: {max_cost_usd: .inf}", "limits.max_cost_usd"},
	}
	for i, c := range cases {
		checkpoint := filepath.Join(dir, fmt.Sprintf("cp%d.db", i))
		job := writeFile(t, filepath.Join(dir, fmt.Sprintf("job%d.yaml", i)), offlineJob("v", checkpoint, "path: "+input, c.yaml+"\n"))
		want(t, c.yaml, run(t, []string{"run", job}, harness.Options{}), 1, "validating job: "+c.key)
		if _, err := os.Stat(checkpoint); err == nil {
			t.Errorf("%s: the run created its checkpoint before the job was validated", c.yaml)
		}
	}
	// The sources' own settings too.
	job := writeFile(t, filepath.Join(dir, "src.yaml"), offlineJob("v", filepath.Join(dir, "src.db"), "path: "+input+"\n    max_body_bytes: -1", ""))
	want(t, "max_body_bytes -1", run(t, []string{"plan", job}, harness.Options{}), 1, "sources[0].max_body_bytes")
}

// TestSetFlag: --set reaches list elements by index, as docs/jobs.md promises, and a --set that
// cannot apply is a usage error (exit 2).
func TestSetFlag(t *testing.T) {
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("set", filepath.Join(dir, "cp.db"), "path: "+filepath.Join(dir, "missing.jsonl"), ""))
	want(t, "run without --set", run(t, []string{"run", job}, harness.Options{}), 2, "missing.jsonl")
	res := run(t, []string{"run", job, "--set", "sources.0.path=" + input, "--set", "sources.0.format=jsonl"}, harness.Options{})
	want(t, "--set sources.0.path", res, 0)
	if !strings.Contains(res.Stdout, "episodes           1") {
		t.Errorf("--set sources.0.path did not read %s:\n%s", input, res.Stdout)
	}
	for _, set := range []string{"nokey", "=x", "llm.concurency=3", "llm.concurrency=lots", "sources.7.path=x", "sources.x.path=x",
		"name.first=x", "llm.temperature=5"} {
		res := run(t, []string{"plan", job, "--set", "sources.0.path=" + input, "--set", set}, harness.Options{})
		want(t, "--set "+set, res, 2, "--set")
	}
}
