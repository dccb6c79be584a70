package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// readme returns the README's recipes (readmeRecipes), failing the test on a stray marker.
func readme(t *testing.T) []recipe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := readmeRecipes(string(b))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	return rs
}

// testName is the test a "run by" marker names.
var testName = regexp.MustCompile(`\bTest\w+`)

// logLevel finds a warning or an error in a backfill log.
var logLevel = regexp.MustCompile(`(?m)^time=\S+ level=(WARN|ERROR) .*$`)

// TestREADMERecipes runs every offline recipe of the README as written, in README order, from
// the root of one repository copy (the one `make demo` ran in, beside a link to ../shared when
// the repository has one), with the environment of the test: each must exit 0 and log no
// warning or error. An offline recipe needs nothing but the repository, its bundled files and
// `make demo` (which builds bin/backfill): no network, no model or database server. The others
// carry a marker in the README and are reported as skipped with it; a marker that marks nothing
// fails (readmeRecipes). Recipes that read LoCoMo (they name jobs/examples/locomo.yaml or
// ../shared) run when the dataset is there and are skipped naming where it was looked for.
// `make demo` is the package's one demo run (sharedDemo): make runs with -o build.
func TestREADMERecipes(t *testing.T) {
	rs := readme(t)
	dir, demoRes := sharedDemo(t)
	locomo, haveLoCoMo := testenv.LoCoMoPath(root, os.Getenv(testenv.EnvLoCoMo))
	tests := testNames(t)
	ran, demo := 0, false
	for _, r := range rs {
		name := fmt.Sprintf("README.md:%d", r.Line)
		t.Run(name, func(t *testing.T) {
			switch {
			case strings.HasPrefix(r.Skip, "run by "):
				if by := testName.FindString(r.Skip); !tests[by] {
					t.Fatalf("%s: marked %q, which names no test of tests/cli", r.Cmd, r.Skip)
				}
				t.Skipf("%s (%s)", r.Cmd, r.Skip)
			case r.Skip != "":
				t.Skipf("%s (%s)", r.Cmd, r.Skip)
			case (strings.Contains(r.Cmd, "locomo") || strings.Contains(r.Cmd, "../shared")) && !haveLoCoMo:
				t.Skipf("%s: %s", r.Cmd, testenv.NoLoCoMo(locomo))
			}
			ran++
			var res harness.Result
			if strings.HasPrefix(r.Cmd, "make demo") {
				demo, res = true, demoRes
			} else {
				cmd := r.Cmd
				if rest, ok := strings.CutPrefix(cmd, "make "); ok {
					cmd = "make -o build " + rest // bin/backfill is the test binary
				}
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
				defer cancel()
				var err error
				if res, err = harness.Run(ctx, "bash", []string{"-c", cmd}, harness.Options{Dir: dir}); err != nil {
					t.Fatal(err)
				}
			}
			if res.Code != 0 {
				t.Fatalf("%s\nexit %d\nstdout:\n%s\nstderr:\n%s", r.Cmd, res.Code, tail(res.Stdout), tail(res.Stderr))
			}
			if w := logLevel.FindAllString(res.Stderr, 5); len(w) > 0 {
				t.Errorf("%s logs:\n%s", r.Cmd, strings.Join(w, "\n"))
			}
		})
	}
	if !demo {
		t.Errorf("no `make demo` among the README's recipes")
	}
	if ran < 6 {
		t.Errorf("%d recipes ran, want the README's handful at least: %+v", ran, rs)
	}
}

// testNames returns the names of the tests of tests/cli.
func testNames(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "tests", "cli", "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`).FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
	}
	return names
}

// tail is the end of a long output.
func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// TestReadmeRecipesRule: what readmeRecipes takes for a recipe and which marker keeps it from
// running, and the markers it refuses.
func TestReadmeRecipesRule(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []recipe
		err        string
	}{
		{"block lines, comments and continuations", "text\n```sh\n# a comment\nbin/backfill run a.yaml   # runs\n\nbin/backfill plan a.yaml \\\n    --set x=1\n```\n",
			[]recipe{{Line: 4, Cmd: "bin/backfill run a.yaml   # runs"}, {Line: 6, Cmd: "bin/backfill plan a.yaml \\\n    --set x=1"}}, ""},
		{"other blocks are not recipes", "```\nbin/backfill run a.yaml\n```\n```go\nbin/backfill run b.yaml\n```\n", nil, ""},
		{"inline spans, one across a line break", "Run `bin/backfill run a.yaml`, then `bin/backfill eval\n  a.yaml --gold g.yaml`; `backfill plan` and `make test` are not.\n",
			[]recipe{{Line: 1, Cmd: "bin/backfill run a.yaml"}, {Line: 1, Cmd: "bin/backfill eval a.yaml --gold g.yaml"}}, ""},
		{"make demo named often runs once", "`make demo` then\n```sh\nmake demo   # builds\n```\nand `make demo` again\n",
			[]recipe{{Line: 1, Cmd: "make demo"}}, ""},
		{"a marker before a block", "<!-- recipe: needs a key -->\n```sh\nbin/backfill run a.yaml\nbin/backfill status a.yaml\n```\n",
			[]recipe{{Line: 3, Cmd: "bin/backfill run a.yaml", Skip: "needs a key"}, {Line: 4, Cmd: "bin/backfill status a.yaml", Skip: "needs a key"}}, ""},
		{"a marker for some lines of a block", "<!-- recipe: make test needs the servers -->\n```sh\nmake demo\nmake test   # all\n```\n",
			[]recipe{{Line: 3, Cmd: "make demo"}, {Line: 4, Cmd: "make test   # all", Skip: "needs the servers"}}, ""},
		{"a marker after an inline recipe", "Try `bin/backfill run x.yaml` <!-- recipe: needs neo4j --> and `bin/backfill run y.yaml`.\n",
			[]recipe{{Line: 1, Cmd: "bin/backfill run x.yaml", Skip: "needs neo4j"}, {Line: 1, Cmd: "bin/backfill run y.yaml"}}, ""},
		{"a marker on the next line after an inline recipe", "Try `bin/backfill run x.yaml`\n<!-- recipe: run by TestX -->\nok\n",
			[]recipe{{Line: 1, Cmd: "bin/backfill run x.yaml", Skip: "run by TestX"}}, ""},
		{"a marker that marks nothing", "text\n<!-- recipe: needs neo4j -->\n\n```sh\nbin/backfill run a.yaml\n```\n", nil, "line 2: <!-- recipe: needs neo4j --> marks no recipe"},
		{"a marker naming a command the block lacks", "<!-- recipe: make bench needs time -->\n```sh\nmake test\n```\n", nil, `no line of the block at line 2 starts with "make bench"`},
		{"a marker saying something else", "<!-- recipe: slow -->\n```sh\nmake test\n```\n", nil, `marker "slow"`},
		{"a marker quoted in inline code is prose", "Mark them `<!-- recipe: needs … -->`.\n", nil, ""},
		{"an unclosed block", "```sh\nmake demo\n", nil, "never ends"},
	} {
		got, err := readmeRecipes(c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %+v (%v)\nwant %+v", c.name, got, err, c.want)
		}
	}
}
