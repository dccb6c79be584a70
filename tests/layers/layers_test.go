package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// module is the module's import path.
const module = "github.com/tkgraph/backfill/"

// layers are the floors of the module from the bottom up, each with the packages it holds ("x/..."
// is x and every package under it; the first pattern that matches places a package). A package
// imports packages of its own floor or of the floors below it, never above: the floors are the
// layers docs/architecture.md describes, with these placed where their imports put them (so that no arrow points
// up): report and the hashing embedder sit with the wire types (they import nothing that does
// work); the checkpoint store, the loaders and the sinks, which know no client, sit below the
// clients; the read side (evaluation, graphdiff, timeline, snapshots) reads stores and not the
// write side; the embedder sits below the chat client, which it must not import.
var layers = []struct {
	name     string
	packages []string
}{
	{"base", []string{"graph", "internal/..."}},
	{"the job spec (jobs: the loader over the declared keys; it knows no part)", []string{"jobs"}},
	{"wire types", []string{"llm/wire", "llm/cache", "llm/batchrec", "report", "embed/hashing"}},
	{"stores, readers and sinks", []string{"checkpoints/...", "loaders/...", "records", "sinks/..."}},
	{"transport", []string{"llm/pacing", "llm/transport"}},
	{"read side", []string{"evaluation", "graphdiff", "timeline", "snapshots/..."}},
	{"batches", []string{"llm/batch"}},
	{"the shape of an observed call", []string{"llm/calls"}},
	{"embedder", []string{"embed"}},
	{"chat client", []string{"llm"}},
	{"providers", []string{"providers/..."}},
	{"the stage shape", []string{"stages"}},
	{"stages", []string{"stages/..."}},
	{"telemetry (observers of the stages, clients, batches and sink, on OpenTelemetry)", []string{"telemetry"}},
	{"composition root", []string{"jobs/pipeline"}},
	{"run and plan", []string{"jobs/runner", "jobs/planner", "jobs/jobstest", "telemetry/otlp"}},
	{"commands, benchmarks, tests and examples", []string{"cmd/...", "bench/...", "tests/...", "testinfra/...", "examples/..."}},
}

// siblings are the package trees whose packages do not import one another (what they share
// moves down to the parent).
var siblings = []string{"stages/"}

// pkg is a package as go list describes it.
type pkg struct {
	ImportPath string
	Imports    []string
}

// listPackages lists the module's packages with their (non-test) imports of the module.
func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(p.ImportPath, module)
		var imports []string
		for _, i := range p.Imports {
			if strings.HasPrefix(i, module) {
				imports = append(imports, strings.TrimPrefix(i, module))
			}
		}
		pkgs[name] = imports
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

// floor is the index of the layer that holds p, or -1.
func floor(p string) int {
	for i, l := range layers {
		for _, pat := range l.packages {
			if matches(p, pat) {
				return i
			}
		}
	}
	return -1
}

// matches reports whether package p is pat, or under it when pat is "tree/...".
func matches(p, pat string) bool {
	if tree, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == tree || strings.HasPrefix(p, tree+"/")
	}
	return p == pat
}

// TestLayers: every package of the module has a floor, and every import points to its own
// floor or one below; packages under a siblings tree do not import one another.
func TestLayers(t *testing.T) {
	pkgs := listPackages(t)
	for p, imports := range pkgs {
		f := floor(p)
		if f < 0 {
			t.Errorf("%s is on no floor: place it in layers (tests/layers)", p)
			continue
		}
		for _, i := range imports {
			if g := floor(i); g > f {
				t.Errorf("%s (%s) imports %s (%s): an arrow pointing up", p, layers[f].name, i, layers[g].name)
			}
			for _, s := range siblings {
				if strings.HasPrefix(p, s) && strings.HasPrefix(i, s) {
					t.Errorf("%s imports its sibling %s: what they share moves down to %s", p, i, strings.TrimSuffix(s, "/"))
				}
			}
		}
	}
	chain := longestChain(pkgs)
	t.Logf("%d packages; the longest import chain (%d packages): %s", len(pkgs), len(chain), strings.Join(chain, " → "))
}

// TestJobsKnowsNoPart: the job spec's dependencies hold no stage, sink or LLM package (go list
// -deps ./jobs).
func TestJobsKnowsNoPart(t *testing.T) {
	pkgs := listPackages(t)
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, i := range pkgs[p] {
			walk(i)
		}
	}
	walk("jobs")
	var deps []string
	for p := range seen {
		deps = append(deps, p)
		for _, part := range []string{"stages", "sinks", "llm"} {
			if p == part || strings.HasPrefix(p, part+"/") {
				t.Errorf("jobs depends on %s", p)
			}
		}
	}
	slices.Sort(deps)
	t.Logf("jobs and its dependencies in the module: %s", strings.Join(deps, ", "))
}

// longestChain is a longest import path of the module's package graph (a DAG), from an
// importing package down to a leaf.
func longestChain(pkgs map[string][]string) []string {
	memo := map[string][]string{}
	var from func(p string) []string
	from = func(p string) []string {
		if c, ok := memo[p]; ok {
			return c
		}
		best := []string{p}
		for _, i := range pkgs[p] {
			if c := from(i); len(c)+1 > len(best) || len(c)+1 == len(best) && fmt.Sprint(c) < fmt.Sprint(best[1:]) {
				best = append([]string{p}, c...)
			}
		}
		memo[p] = best
		return best
	}
	var best []string
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		if c := from(p); len(c) > len(best) {
			best = c
		}
	}
	return best
}
