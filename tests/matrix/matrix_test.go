package matrix

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/tests/harness"
)

var update = flag.Bool("update", false, "rewrite docs/matrix.md from the outcomes")

// planted is a word only Alice's messages of the demo hold: forget --speaker Alice must leave it
// nowhere.
const planted = "Pangyo"

// The dimensions of the matrix.
var (
	storeKinds = []string{"local", "s3"}
	sinkKinds  = []string{"sqlite", "neo4j", "falkordb"} // what runs here; memgraph: see memgraphNote
	llmModes   = []string{"online", "batch"}
)

// memgraphNote is what the table says of the memgraph sink, which cannot run here.
const memgraphNote = "Memgraph cannot run on this machine (no registry ships its server): its statements are golden-tested " +
	"(sinks/cypher), the CYPHERL export runs in every cell (`--dialect memgraph`), and `.github/workflows/memgraph.yml` runs the " +
	"sink's integration tests against Memgraph's container wherever the repository is hosted."

// covered are the commands of `backfill --help`, each with the row(s) of the matrix or of the
// table of commands that do not read a store that cover it.
var covered = map[string]string{
	"run": "run", "plan": "plan", "status": "status", "query": "query", "timeline": "timeline", "export": "export parquet",
	"eval": "eval (checkpoint)", "diff": "diff", "forget": "forget", "import": "import", "llm-stub": "llm-stub",
	"version": "version", "completion": "completion", "help": "help",
}

// cell is one column of the matrix.
type cell struct{ store, sink, mode string }

func (c cell) String() string { return c.store + " · " + c.sink + " · " + c.mode }

// fixture is what every cell shares: the binary, the stub, the servers and the outcomes.
type fixture struct {
	bin, root, dir, stub string
	neo4j, falkor        string
	s3                   testenv.S3Env
	s3Flags              []string
	bucket               string
	outcomes             map[string]map[string]string // row → cell → outcome
	rows                 []string
}

// TestMatrix runs the commands in every cell and compares the outcomes with docs/matrix.md.
func TestMatrix(t *testing.T) {
	f := newFixture(t)
	checkCovered(t, f)
	var cells []cell
	for _, st := range storeKinds {
		for _, sk := range sinkKinds {
			for _, m := range llmModes {
				cells = append(cells, cell{st, sk, m})
			}
		}
	}
	for _, c := range cells {
		t.Run(strings.ReplaceAll(c.String(), " · ", "-"), func(t *testing.T) { f.runCell(t, c) })
	}
	f.standalone(t)
	for _, row := range f.rows {
		for k, v := range f.outcomes[row] {
			if strings.HasPrefix(v, "FAILED") {
				t.Errorf("%s in %s: %s", row, k, v)
			}
		}
	}
	got := f.render(cells)
	path := filepath.Join(f.root, "docs", "matrix.md")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v (go test ./tests/matrix -update writes it)", path, err)
	}
	if d := harness.DiffLines(strings.Split(string(want), "\n"), strings.Split(got, "\n")); d != "" {
		t.Errorf("the outcomes differ from docs/matrix.md (a feature that stopped composing, or a new one: go test ./tests/matrix -update after checking): %s", d)
	}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, dir: t.TempDir(), outcomes: map[string]map[string]string{}}
	for _, row := range []string{"run", "status (batches pending)"} { // the order of the table's first rows
		f.record(row, "", "")
	}
	f.neo4j = testenv.Neo4jExclusive(t)
	f.falkor = testenv.FalkorDBExclusive(t)
	f.s3 = testenv.S3(t)
	if f.neo4j == "" || f.falkor == "" || f.s3.Endpoint == "" {
		t.Skip("the matrix needs Neo4j, FalkorDB and the S3 gateway")
	}
	f.bucket = testenv.NewBucket(t, f.s3, nil)
	f.s3Flags = []string{"--set", "s3.endpoint=" + f.s3.Endpoint, "--set", "s3.path_style=true"}
	for k, v := range f.s3.ProcessEnv(f.dir) {
		t.Setenv(k, v)
	}
	f.bin = harness.BuildBinary(t)
	f.stub = harness.LLMStub(t, f.bin, "--batch-delay", "0s")
	f.record("llm-stub", "any", "ok (serves every cell)")
	return f
}

// checkCovered fails when `backfill --help` lists a command the matrix does not cover, or the
// job spec accepts a sink kind it does not know.
func checkCovered(t *testing.T, f *fixture) {
	t.Helper()
	res := f.exec(t, "", "--help")
	cmds := regexp.MustCompile(`(?m)^  (\S+)\s{2,}`).FindAllStringSubmatch(res.Stdout, -1)
	if len(cmds) < 5 {
		t.Fatalf("cannot read the commands of backfill --help:\n%s", res.Stdout)
	}
	for _, m := range cmds {
		if _, ok := covered[m[1]]; !ok {
			t.Errorf("backfill --help lists %q, which the matrix does not cover: add it (tests/matrix)", m[1])
		}
	}
	for _, k := range graphdb.Kinds {
		if !slices.Contains(sinkKinds, k) && k != "memgraph" {
			t.Errorf("the job spec accepts sink.kind %q, which the matrix does not cover: add it (tests/matrix)", k)
		}
	}
}

// runCell runs every command in one cell, recording each outcome.
func (f *fixture) runCell(t *testing.T, c cell) {
	dir := filepath.Join(f.dir, strings.ReplaceAll(c.String(), " · ", "-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f.clearDatabases(t)
	job := filepath.Join(f.root, "jobs", "examples", "demo.yaml")
	flags := []string{"--set", "llm.provider=openai", "--set", "llm.base_url=" + f.stub, "--set", "llm.model=stub-chat",
		"--set", "llm.concurrency=8"}
	if c.mode == "batch" {
		flags = append(flags, "--set", "llm.mode=batch", "--set", "llm.batch.poll_seconds=0.05")
	}
	checkpoint := filepath.Join(dir, "demo.db")
	if c.store == "s3" {
		checkpoint = "s3://" + f.bucket + "/" + strings.ReplaceAll(c.String(), " · ", "-") + "/demo.db"
		flags = append(flags, f.s3Flags...)
	}
	sets := slices.Clone(flags) // diff names the checkpoint as JOB@CHECKPOINT
	flags = append(flags, "--checkpoint", checkpoint)
	graph := ""
	switch c.sink {
	case "neo4j":
		flags = append(flags, "--set", "sink.kind=neo4j", "--set", "sink.uri="+f.neo4j)
		graph = job + "@" + f.neo4j
	case "falkordb":
		flags = append(flags, "--set", "sink.kind=falkordb", "--set", "sink.uri="+f.falkor)
		graph = job + "@" + f.falkor
	}
	do := func(row string, codes []int, args ...string) harness.Result {
		t.Helper()
		res := f.exec(t, f.root, append(args, flags...)...)
		f.outcome(row, c, res, codes)
		return res
	}
	gold := filepath.Join(f.root, "examples", "gold", "demo.yaml")

	// run: online at once; in batch mode with --no-wait (the batches pending), then to the end.
	if c.mode == "batch" {
		res := f.exec(t, f.root, append([]string{"run", job, "--no-wait"}, flags...)...)
		if res.Code != 0 || !strings.Contains(res.Stderr, "batches pending") {
			f.outcome("run", c, res, []int{-1})
			return
		}
		st := f.exec(t, f.root, append([]string{"status", job}, flags...)...)
		f.outcome("status (batches pending)", c, st, []int{0})
		if !strings.Contains(st.Stdout, "open") {
			t.Errorf("status with batches pending lists none:\n%s", st.Stdout)
		}
	}
	if res := do("run", []int{0}, "run", job); res.Code != 0 {
		return
	}
	do("plan", []int{0}, "plan", job)
	do("status", []int{0}, "status", job)
	if res := do("query", []int{0}, "query", job, "--group", "alice", "--entity", "Alice"); !strings.Contains(res.Stdout, "Naver") {
		t.Errorf("query --entity Alice does not show her employer (Naver):\n%s", res.Stdout)
	}
	do("timeline", []int{0}, "timeline", job, "--group", "alice", "--entity", "Alice", "--out", filepath.Join(dir, "alice.html"))
	pq := filepath.Join(dir, "parquet")
	do("export parquet", []int{0}, "export", job, "--out", pq)
	for _, dialect := range []string{"neo4j", "falkordb", "memgraph"} {
		do("export cypherl --dialect "+dialect, []int{0}, "export", job, "--format", "cypherl", "--dialect", dialect,
			"--out", filepath.Join(dir, "cypherl-"+dialect))
	}
	evalJSON := func(name string) string { return filepath.Join(dir, name+".json") }
	do("eval (checkpoint)", []int{0}, "eval", job, "--gold", gold, "--json", evalJSON("eval-store"))
	do("eval (Parquet export)", []int{0}, "eval", pq, "--gold", gold, "--json", evalJSON("eval-export"))
	f.sameGold(t, c, "eval (Parquet export)", evalJSON("eval-store"), evalJSON("eval-export"))
	if graph == "" {
		f.record("eval (graph database)", c.String(), "n/a: no database")
		res := f.exec(t, f.root, append([]string{"diff", job + "@" + checkpoint, pq}, sets...)...)
		f.outcome("diff", c, res, []int{0})
	} else {
		do("eval (graph database)", []int{0}, "eval", graph, "--gold", gold, "--json", evalJSON("eval-db"))
		f.sameGold(t, c, "eval (graph database)", evalJSON("eval-store"), evalJSON("eval-db"))
		res := f.exec(t, f.root, append([]string{"diff", job + "@" + checkpoint, graph}, sets...)...)
		f.outcome("diff", c, res, []int{0})
	}

	// forget: Alice's messages leave the store, its files, the exports and the database.
	if !f.holds(t, c, dir, checkpoint) {
		t.Fatalf("before forgetting, nothing of the cell holds %q: the check after it could not fail", planted)
	}
	args := []string{"forget", job, "--speaker", "Alice"}
	if c.sink == "sqlite" {
		do("forget --load", []int{1}, append(args, "--load")...)
	} else {
		args = append(args, "--load")
		f.record("forget --load", c.String(), "ok (the row forget)")
	}
	if res := do("forget", []int{0}, args...); res.Code == 0 && f.holds(t, c, dir, checkpoint) {
		t.Errorf("after forget --speaker Alice, %q is still in the cell (store, files, exports or database)", planted)
		f.record("forget", c.String(), "FAILED: the text survives")
	}
}

// standalone runs the commands that read no store: one column.
func (f *fixture) standalone(t *testing.T) {
	lme := filepath.Join(f.root, "loaders", "testdata", "longmemeval_small.json")
	for _, x := range []struct {
		row  string
		code int
		args []string
	}{
		{"version", 0, []string{"version"}},
		{"completion", 0, []string{"completion", "bash"}},
		{"help", 0, []string{"help", "run"}},
		// the file holds records with empty turns: imported without them (exit 3)
		{"import", 3, []string{"import", "longmemeval", lme, "--out", filepath.Join(f.dir, "lme.parquet")}},
	} {
		res := f.exec(t, f.dir, x.args...)
		f.outcome(x.row, cell{}, res, []int{x.code})
	}
}

// exec runs the binary in dir.
func (f *fixture) exec(t *testing.T, dir string, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), f.bin, args, harness.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// outcome records a result: "ok" when its exit code is the first of codes, else the code and
// the last line of its error output (paths and names of this run replaced), which the table
// then shows. A -1 in codes records any exit as a failure.
func (f *fixture) outcome(row string, c cell, res harness.Result, codes []int) {
	key := c.String()
	if c == (cell{}) {
		key = "any"
	}
	if res.Code == codes[0] && codes[0] == 0 {
		f.record(row, key, "ok")
		return
	}
	msg := strings.TrimSpace(res.Stderr) // its last line, or the last that is backfill's error (not a log line)
	if i := strings.LastIndex(msg, "\nbackfill: "); i >= 0 {
		msg = msg[i+1:]
	} else if i := strings.LastIndex(msg, "\n"); i >= 0 {
		msg = msg[i+1:]
	}
	for _, r := range []struct{ old, new string }{{f.dir, "DIR"}, {f.bucket, "BUCKET"}, {f.stub, "STUB"}, {f.neo4j, "NEO4J"},
		{f.falkor, "FALKORDB"}, {f.root, "REPO"}} {
		msg = strings.ReplaceAll(msg, r.old, r.new)
	}
	if res.Code == codes[0] {
		what := "refused as documented"
		if res.Code == 3 {
			what = "done, partly, as documented"
		}
		f.record(row, key, fmt.Sprintf("%s (exit %d): %s", what, res.Code, strings.TrimPrefix(msg, "backfill: ")))
		return
	}
	f.record(row, key, fmt.Sprintf("FAILED (exit %d): %s", res.Code, strings.TrimPrefix(msg, "backfill: ")))
}

func (f *fixture) record(row, key, v string) {
	if f.outcomes[row] == nil {
		f.outcomes[row] = map[string]string{}
		f.rows = append(f.rows, row)
	}
	f.outcomes[row][key] = v
}

// sameGold checks that two eval reports give the same gold scores.
func (f *fixture) sameGold(t *testing.T, c cell, row, a, b string) {
	t.Helper()
	read := func(p string) *evaluation.GoldReport {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		var r evaluation.Report
		if json.Unmarshal(raw, &r) != nil {
			return nil
		}
		return r.Gold
	}
	ga, gb := read(a), read(b)
	if ga == nil || gb == nil {
		return // the outcome of the command says why
	}
	sa := fmt.Sprintf("P %.3f R %.3f F1 %.3f matched %d of %d", ga.Precision, ga.Recall, ga.F1, ga.Matched, ga.GoldFacts)
	sb := fmt.Sprintf("P %.3f R %.3f F1 %.3f matched %d of %d", gb.Precision, gb.Recall, gb.F1, gb.Matched, gb.GoldFacts)
	if sa != sb {
		t.Errorf("%s: %s scores %s, the checkpoint %s", c, row, sb, sa)
		f.record(row, c.String(), "FAILED: other gold scores than the checkpoint's")
	}
}

// holds reports whether any file of the cell (its directory: local store, exports, pages;
// the local copies of s3:// stores), any snapshot in the bucket, or the cell's database holds
// planted.
func (f *fixture) holds(t *testing.T, c cell, dir, checkpoint string) bool {
	t.Helper()
	roots := []string{dir}
	if c.store == "s3" {
		roots = append(roots, filepath.Join(f.dir, "cache"))
		objs, err := testenv.Objects(t.Context(), f.s3, f.bucket)
		if err != nil {
			t.Fatal(err)
		}
		prefix := strings.TrimPrefix(strings.TrimSuffix(checkpoint, "demo.db"), "s3://"+f.bucket+"/")
		dec, _ := zstd.NewReader(nil)
		defer dec.Close()
		for k, b := range objs {
			if !strings.HasPrefix(k, prefix) {
				continue
			}
			if plain, err := dec.DecodeAll(b, nil); err == nil {
				b = plain
			}
			if bytes.Contains(b, []byte(planted)) {
				return true
			}
		}
	}
	for _, r := range roots {
		found := false
		_ = filepath.WalkDir(r, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || found {
				return err
			}
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(planted)) {
				found = true
			}
			return nil
		})
		if found {
			return true
		}
	}
	switch c.sink {
	case "neo4j":
		n, err := harness.Neo4jHits(t.Context(), f.neo4j, planted)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return true
		}
	case "falkordb":
		db, err := harness.DialFalkorDB(f.falkor)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		snap, err := db.Snapshot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range snap {
			if strings.Contains(line, planted) {
				return true
			}
		}
	}
	return false
}

// clearDatabases empties Neo4j and FalkorDB (the test holds both exclusively).
func (f *fixture) clearDatabases(t *testing.T) {
	t.Helper()
	if err := harness.ClearNeo4j(t.Context(), f.neo4j); err != nil {
		t.Fatal(err)
	}
	db, err := harness.DialFalkorDB(f.falkor)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// render writes the outcomes as docs/matrix.md.
func (f *fixture) render(cells []cell) string {
	var b strings.Builder
	b.WriteString(`# What works where: the composition matrix

Generated by ` + "`go test ./tests/matrix -update`" + ` from what the binary did; ` + "`make test`" + ` fails when the
outcomes differ from this page. Every command runs on the demo job (` + "`jobs/examples/demo.yaml`" + `, through
` + "`backfill llm-stub`" + `) in every cell: a checkpoint store (a local file, or ` + "`s3://`" + ` on the versitygw
gateway) crossed with a sink (` + "`sqlite`" + `: none; Neo4j 5.26; FalkorDB 4.16) and an LLM mode (online, or batch:
` + "`run --no-wait`" + `, then ` + "`run`" + ` to the end). "ok" means the command exited 0 and did its work (the
test also checks that eval reads the same gold scores from the checkpoint, the Parquet export and the database,
that query shows Alice's employer, and that after ` + "`forget --speaker Alice`" + ` no file of the cell, no snapshot
in the bucket and no database property holds her words); anything else is quoted from the command.

` + memgraphNote + `

`)
	for _, st := range storeKinds {
		fmt.Fprintf(&b, "## Store: %s\n\n| command |", st)
		var cols []cell
		for _, c := range cells {
			if c.store == st {
				cols = append(cols, c)
				fmt.Fprintf(&b, " %s · %s |", c.sink, c.mode)
			}
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
		for _, row := range f.rows {
			if _, ok := f.outcomes[row]["any"]; ok {
				continue
			}
			fmt.Fprintf(&b, "| `%s` |", row)
			for _, c := range cols {
				v := f.outcomes[row][c.String()]
				if v == "" {
					v = "n/a"
				}
				fmt.Fprintf(&b, " %s |", strings.ReplaceAll(v, "|", `\|`))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("## Commands that read no store\n\n| command | outcome |\n|---|---|\n")
	for _, row := range f.rows {
		if v, ok := f.outcomes[row]["any"]; ok {
			fmt.Fprintf(&b, "| `%s` | %s |\n", row, v)
		}
	}
	return b.String()
}
