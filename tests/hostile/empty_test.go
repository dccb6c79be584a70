package hostile

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs/pipeline"
)

// setKeys lists a dotted key for every scalar the job spec has, from the keys the parts declare
// (pipeline.Keys; a list element as index 0, a map entry as "extract_graph", a task and a model
// name both), so that a key added later is covered too.
func setKeys() []string {
	var out []string
	for _, k := range pipeline.Keys().Keys() {
		p := strings.ReplaceAll(strings.ReplaceAll(k.Path, "[]", ".0"), "*", "extract_graph")
		switch k.Key.Type().Kind() {
		case reflect.Slice:
			p += ".0"
		case reflect.Map:
			p += ".extract_graph"
		}
		out = append(out, p)
	}
	return out
}

// emptyAllowed are the keys whose empty value has a documented meaning (docs/jobs.md, "The job file"; the key reference says what).
var emptyAllowed = map[string]bool{
	"sources.0.default_group": true, "sources.0.description": true, "sources.0.mapping.object": true,
	"ontology.entity_types.0.description": true, "ontology.edge_types.0.description": true,
	"llm.prompts_dir": true, "sink.database": true, "s3.endpoint": true, "s3.region": true, "s3.profile": true,
}

// TestEmptySetValues: every key --set takes, set empty (and blank), is a usage error naming the
// key, unless the key documents what empty means; then the job runs as with the key left out.
func TestEmptySetValues(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), conversation())
	job := offlineJob(t, dir, "empty", in, filepath.Join(dir, "empty.db"), "")
	keys := setKeys()
	if len(keys) < 80 {
		t.Fatalf("only %d keys declared", len(keys))
	}
	for _, k := range keys {
		for _, v := range []string{"", "  "} {
			res := run(t, dir, nil, "plan", job, "--set", k+"="+v)
			if emptyAllowed[k] {
				if strings.Contains(res.Stderr, "an empty value") {
					t.Errorf("--set %s=%q: refused, but empty has a documented meaning:\n%s", k, v, res.Stderr)
				}
				continue
			}
			if res.Code != 2 || !strings.Contains(res.Stderr, k+": an empty value is an error") {
				t.Errorf("--set %s=%q: exit %d, want 2 naming the key:\n%s", k, v, res.Code, res.Stderr)
			}
		}
	}
	t.Logf("%d keys set empty, %d of them documented as taking an empty value", len(keys), len(emptyAllowed))
}

// TestEmptyVariables: a ${VAR} that is set but empty, where it is the whole value, is an error
// naming the line, the key and the variable; ${VAR:-default} and keys that take empty do not fail.
func TestEmptyVariables(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), conversation())
	for _, c := range []struct{ yaml, key string }{
		{"record_time: ${V}\n", "record_time"},
		{"llm:\n  provider: \"${V}\"\n", "llm.provider"},
		{"llm:\n  concurrency: ${V}\n", "llm.concurrency"},
		{"llm:\n  temperature: ${V}\n", "llm.temperature"},
		{"stages:\n  extract:\n    context: ${V}\n", "stages.extract.context"},
		{"limits:\n  max_error_ratio: ${V}\n", "limits.max_error_ratio"},
	} {
		job := writeFile(t, filepath.Join(dir, "v.yaml"), "name: v\nsources:\n  - path: "+in+"\n"+c.yaml)
		res := run(t, dir, []string{"V="}, "plan", job)
		if res.Code == 0 || !strings.Contains(res.Stderr, c.key+": an empty value is an error") || !strings.Contains(res.Stderr, "V is set but empty") {
			t.Errorf("%q with V set but empty: exit %d\n%s", c.yaml, res.Code, res.Stderr)
		}
	}
	// The checkpoint: an empty ${CP} would have opened a fresh store under the default name.
	job := writeFile(t, filepath.Join(dir, "cp.yaml"), "name: cp\ncheckpoint: ${CP}\nsources:\n  - path: "+in+"\n")
	want(t, run(t, dir, []string{"CP="}, "run", job), 1, "checkpoint: an empty value is an error", "CP is set but empty")
	ok := writeFile(t, filepath.Join(dir, "ok.yaml"), "name: ok\ncheckpoint: ${CP:-"+filepath.Join(dir, "ok.db")+
		"}\nsources:\n  - path: "+in+"\n    description: ${V}\n")
	want(t, run(t, dir, []string{"CP=", "V="}, "plan", ok), 0)
}

// flagLine is a flag that takes a value in a command's --help: its name and value placeholder.
var flagLine = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z-]+) ([A-Za-z_./]+) `)

// commands are the commands with flags, with the arguments that reach their flag checks.
var commands = [][]string{{"run", "j.yaml"}, {"plan", "j.yaml"}, {"status", "j.yaml"}, {"query", "j.yaml"},
	{"timeline", "j.yaml"}, {"export", "j.yaml"}, {"import", "locomo", "x.json"}, {"llm-stub"}}

// commandFlags lists the flags of a command that take a value, from its --help, with their
// placeholders.
func commandFlags(t *testing.T, dir string, command string) map[string]string {
	t.Helper()
	res := run(t, dir, nil, command, "--help")
	out := map[string]string{}
	for _, m := range flagLine.FindAllStringSubmatch(res.Stdout, -1) {
		out[m[1]] = m[2]
	}
	if len(out) == 0 {
		t.Fatalf("%s --help lists no flags:\n%s", command, res.Stdout)
	}
	return out
}

// TestEmptyFlags: every flag that takes a value, of every command, given an empty or blank value,
// is a usage error naming the flag (--checkpoint "" used to mean the job's checkpoint, --entity ""
// every entity, --out "" the default file).
func TestEmptyFlags(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for _, c := range commands {
		for flag := range commandFlags(t, dir, c[0]) {
			for _, v := range []string{"", " "} {
				n++
				res := run(t, dir, nil, append(c, fmt.Sprintf("--%s=%s", flag, v))...)
				if res.Code != 2 || !strings.Contains(res.Stderr, "--"+flag) {
					t.Errorf("%s --%s=%q: exit %d\n%s", c[0], flag, v, res.Code, res.Stderr)
				}
			}
		}
	}
	t.Logf("%d empty flag values refused", n)
}
