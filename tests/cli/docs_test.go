package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// gettingStarted is the guide a newcomer follows first (TestGettingStartedNewcomer).
const gettingStarted = "docs/getting-started.md"

// generatedPages are the pages under docs/ whose recipes do not run: the command pages are
// `--help` as make cli-docs renders it, whose examples name files a reader substitutes
// (job.yaml, locomo10.json).
const generatedPages = "docs/cli/"

// indexLink is a link of docs/README.md to a page: [title](path.md) or [title](path.md#anchor).
var indexLink = regexp.MustCompile(`\]\(([^)#]+\.md)(?:#[^)]*)?\)`)

// docFiles returns the Markdown pages whose recipes run, by their path from the repository
// root, in order: README.md, then docs/README.md and the pages it links, in the order it links
// them. Every other page under docs/ (but the generated command pages) must be linked there.
func docFiles(t *testing.T) []string {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "docs/README.md"}
	for _, m := range indexLink.FindAllStringSubmatch(string(index), -1) {
		f := filepath.ToSlash(filepath.Join("docs", m[1]))
		if !strings.HasPrefix(f, generatedPages) && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if f := filepath.ToSlash(rel); err == nil && !strings.HasPrefix(f, generatedPages) && !slices.Contains(files, f) {
			t.Errorf("%s is not linked from docs/README.md, the index whose order the docs' recipes run in", f)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// pageRecipes returns the recipes of a page (docRecipes), failing the test on a stray marker.
func pageRecipes(t *testing.T, file string) []recipe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := docRecipes(string(b))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return rs
}

// testName is the test a "run by" marker names.
var testName = regexp.MustCompile(`\bTest\w+`)

// logLevel finds a warning or an error in a backfill log.
var logLevel = regexp.MustCompile(`(?m)^time=\S+ level=(WARN|ERROR) .*$`)

// TestDocsRecipes runs every recipe of the README and of the guides under docs/ as written, page
// by page in the order of docs/README.md (docFiles), each page in its own copy of the repository
// as `make demo` left it (demoCopy, beside a link to ../shared when the repository has one) and
// in one shell session (so what an `eval` exports reaches the lines after it): each command must
// exit 0 and log no warning or error. A recipe that needs more than the repository, its bundled
// files and `make demo` (the network, a model server, another test) carries a marker and is
// reported as skipped with it; a block marked `uses SERVER` (neo4j, falkordb, s3) runs against
// that integration server, held exclusively and emptied before and after; a marker that marks nothing fails
// (docRecipes). Recipes that read LoCoMo (they name jobs/examples/locomo.yaml or ../shared) run
// when the dataset is there and are skipped naming where it was looked for. `make demo` is the
// package's one demo run (sharedDemo): make runs with -o build.
func TestDocsRecipes(t *testing.T) {
	files := docFiles(t)
	tests := testNames(t)
	ran, pages, demoShown := 0, 0, false
	for _, file := range files {
		t.Run(strings.ReplaceAll(file, "/", "_"), func(t *testing.T) {
			pages++
			rs := pageRecipes(t, file)
			if len(rs) == 0 {
				return
			}
			dir, demoRes := demoCopy(t)
			n, demo := runPage(t, file, rs, dir, page{tests: tests, demo: &demoRes})
			ran += n
			demoShown = demoShown || (demo && file == "README.md")
		})
	}
	if pages < len(files) { // -run chose some pages
		return
	}
	if !demoShown {
		t.Errorf("no `make demo` among the README's recipes")
	}
	if ran < 40 {
		t.Errorf("%d recipes ran, want the docs' few dozen at least", ran)
	}
}

// TestGettingStartedNewcomer runs every command of the getting-started guide as a newcomer
// would in a fresh clone: in a copy of the repository with no ../shared beside it and LOCOMO
// unset (so the LoCoMo dataset is not found), `make demo` first (with -o build: bin/backfill is
// the test binary), then every command in order in one shell session. The guide may leave out
// only `make test` (this test runs inside it) and what another named test runs; it names no
// command that needs the dataset or a server.
func TestGettingStartedNewcomer(t *testing.T) {
	dir := repoCopy(t, t.TempDir())
	if path, ok := testenv.LoCoMoPath(dir, ""); ok {
		t.Fatalf("the newcomer's copy finds the LoCoMo dataset at %s", path)
	}
	rs := pageRecipes(t, gettingStarted)
	for _, r := range rs {
		switch {
		case r.Uses != "":
			t.Errorf("%s:%d: %s needs the %s server, which a newcomer does not have yet", gettingStarted, r.Line, r.Cmd, r.Uses)
		case strings.Contains(r.Cmd, "locomo") || strings.Contains(r.Cmd, "../shared"):
			t.Errorf("%s:%d: %s needs the LoCoMo dataset, which a newcomer does not have", gettingStarted, r.Line, r.Cmd)
		case r.Skip != "" && !strings.HasPrefix(r.Skip, "run by ") && !strings.HasPrefix(r.Cmd, "make test"):
			t.Errorf("%s:%d: %s is left out (%s); the getting-started guide runs as written", gettingStarted, r.Line, r.Cmd, r.Skip)
		}
	}
	if n, demo := runPage(t, gettingStarted, rs, dir, page{tests: testNames(t), setup: "unset LOCOMO"}); !demo || n < 10 {
		t.Errorf("%d commands ran (make demo among them: %v), want make demo and the guide's dozen", n, demo)
	}
}

// page is how runPage runs a page's recipes.
type page struct {
	tests map[string]bool // the tests a "run by" marker may name
	// demo, when set, is how the `make demo` of the copy's state ended: a `make demo` recipe
	// reports it rather than running again. Otherwise `make demo` runs in the session.
	demo  *harness.Result
	setup string // a command run in the session before the recipes ("" = none)
}

// runPage runs the recipes of file in dir, in one shell session, each as a subtest named by its
// line, and returns how many ran and whether `make demo` was among them.
func runPage(t *testing.T, file string, rs []recipe, dir string, p page) (ran int, demo bool) {
	t.Helper()
	locomo, haveLoCoMo := testenv.LoCoMoPath(root, os.Getenv(testenv.EnvLoCoMo))
	servers, env := useServers(t, rs)
	sess, err := newSession(dir, append(env, "BACKFILL_CACHE_DIR="+cacheDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sess.close)
	if p.setup != "" {
		if res, err := sess.run(p.setup, time.Minute); err != nil || res.Code != 0 {
			t.Fatalf("%s: %v %+v", p.setup, err, res)
		}
	}
	for _, r := range rs {
		t.Run(fmt.Sprint(r.Line), func(t *testing.T) {
			switch {
			case strings.HasPrefix(r.Skip, "run by "):
				if by := testName.FindString(r.Skip); !p.tests[by] {
					t.Fatalf("%s:%d: %s: marked %q, which names no test under tests/", file, r.Line, r.Cmd, r.Skip)
				}
				t.Skipf("%s (%s)", r.Cmd, r.Skip)
			case r.Skip != "":
				t.Skipf("%s (%s)", r.Cmd, r.Skip)
			case (strings.Contains(r.Cmd, "locomo") || strings.Contains(r.Cmd, "../shared")) && !haveLoCoMo:
				t.Skipf("%s: %s", r.Cmd, testenv.NoLoCoMo(locomo))
			case r.Uses != "":
				servers.require(t, r.Uses)
			}
			ran++
			var res harness.Result
			if strings.HasPrefix(r.Cmd, "make demo") && p.demo != nil {
				demo, res = true, *p.demo
			} else {
				demo = demo || strings.HasPrefix(r.Cmd, "make demo")
				cmd := r.Cmd
				if rest, ok := strings.CutPrefix(cmd, "make "); ok {
					cmd = "make -o build " + rest // bin/backfill is the test binary
				}
				var err error
				if res, err = sess.run(cmd, 5*time.Minute); err != nil {
					t.Fatalf("%s:%d: %v", file, r.Line, err)
				}
			}
			if res.Code != 0 {
				t.Fatalf("%s:%d: %s\nexit %d\nstdout:\n%s\nstderr:\n%s", file, r.Line, r.Cmd, res.Code, tail(res.Stdout), tail(res.Stderr))
			}
			if w := logLevel.FindAllString(res.Stderr, 5); len(w) > 0 {
				t.Errorf("%s:%d: %s logs:\n%s", file, r.Line, r.Cmd, strings.Join(w, "\n"))
			}
		})
	}
	return ran, demo
}

// cacheDir is where the scripts under scripts/ keep the state of the servers they started (as
// lib.sh decides it for the repository): a copy's scripts given it find the integration servers
// `make test` started, instead of starting others on the same ports.
func cacheDir() string {
	if d := os.Getenv("BACKFILL_CACHE_DIR"); d != "" {
		return d
	}
	return filepath.Join(root, ".cache")
}

// servers are the integration servers a page's `uses` blocks run against, held for the page.
type servers map[string]bool

// bucketOfPage is a bucket a page's recipe creates with scripts/versitygw.sh.
var bucketOfPage = regexp.MustCompile(`scripts/versitygw\.sh bucket ([a-z0-9.-]+)`)

// useServers takes, for the whole of t, every integration server the recipes use and the
// environment provides: an exclusive hold (as the tests that empty a server take it), emptied
// before the page runs and after it (for the S3 gateway: the buckets the page creates, and the
// page's processes get the gateway's credentials only, with a user cache of their own). It
// returns the servers held and what the page's session adds to its environment. A server the
// environment lacks is left to require, which fails or skips each recipe that uses it as
// internal/testenv decides.
func useServers(t *testing.T, rs []recipe) (servers, []string) {
	t.Helper()
	held, env := servers{}, []string(nil)
	for _, r := range rs {
		if r.Uses == "" || held[r.Uses] {
			continue
		}
		var clear func(context.Context) error
		switch r.Uses {
		case "neo4j":
			if os.Getenv(testenv.EnvNeo4jURI) == "" {
				continue
			}
			uri := testenv.Neo4jExclusive(t)
			clear = func(ctx context.Context) error { return harness.ClearNeo4j(ctx, uri) }
		case "falkordb":
			if os.Getenv(testenv.EnvFalkorDBURI) == "" {
				continue
			}
			uri := testenv.FalkorDBExclusive(t)
			clear = func(ctx context.Context) error { return harness.ClearFalkorDB(ctx, uri) }
		case "s3":
			if os.Getenv(testenv.EnvS3Endpoint) == "" {
				continue
			}
			s3 := testenv.S3Exclusive(t)
			for k, v := range s3.ProcessEnv(t.TempDir()) {
				env = append(env, k+"="+v)
			}
			var buckets []string
			for _, r := range rs {
				if m := bucketOfPage.FindStringSubmatch(r.Cmd); m != nil {
					buckets = append(buckets, m[1])
				}
			}
			clear = func(ctx context.Context) error {
				for _, b := range buckets {
					if err := testenv.DeleteBucket(ctx, s3.Client(), b); err != nil && !strings.Contains(err.Error(), "NoSuchBucket") {
						return fmt.Errorf("bucket %s: %w", b, err)
					}
				}
				return nil
			}
		default:
			t.Fatalf("a recipe uses the server %q: want neo4j, falkordb or s3", r.Uses)
		}
		if err := clear(t.Context()); err != nil {
			t.Fatalf("emptying the %s server: %v", r.Uses, err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := clear(ctx); err != nil {
				t.Errorf("emptying the %s server: %v", r.Uses, err)
			}
		})
		held[r.Uses] = true
	}
	return held, env
}

// require fails or skips t (internal/testenv's rule) unless the page holds the server.
func (s servers) require(t *testing.T, name string) {
	t.Helper()
	if s[name] {
		return
	}
	switch name {
	case "neo4j":
		testenv.Neo4j(t)
	case "falkordb":
		testenv.FalkorDB(t)
	case "s3":
		testenv.S3(t)
	}
	t.Fatalf("the %s server is not held for this page", name)
}

// testNames returns the names of the tests under tests/.
func testNames(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "tests", "*", "*_test.go"))
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

// TestDocRecipesRule: what docRecipes takes for a recipe and which marker keeps it from
// running, and the markers it refuses.
func TestDocRecipesRule(t *testing.T) {
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
		{"a block that uses a server", "<!-- recipe: uses neo4j -->\n```sh\neval \"$(scripts/neo4j.sh start)\"\nbin/backfill run a.yaml\n```\n",
			[]recipe{{Line: 3, Cmd: `eval "$(scripts/neo4j.sh start)"`, Uses: "neo4j"}, {Line: 4, Cmd: "bin/backfill run a.yaml", Uses: "neo4j"}}, ""},
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
		got, err := docRecipes(c.text)
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
