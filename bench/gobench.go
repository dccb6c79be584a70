package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// runGoBench runs one benchmark pattern of a package for times iterations (-benchtime Nx) and
// parses its metrics. env is added to the environment.
func runGoBench(ctx context.Context, root, pkg, pattern string, times int, env []string) (*GoBench, error) {
	args := []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", strconv.Itoa(times) + "x", "-count", "1", "-timeout", "30m", pkg}
	g := &GoBench{Command: "go " + strings.Join(args, " ")}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return g, fmt.Errorf("%s: %w\n%s", g.Command, err, tailLines(string(out), 15))
	}
	g.Metrics = parseBench(string(out))
	if len(g.Metrics) == 0 {
		g.Note = "no benchmark result in the output: " + tailLines(string(out), 5)
	}
	return g, nil
}

// parseBench reads `go test -bench` result lines ("BenchmarkX-2  1  123 ns/op  4.5 rows/s …")
// into benchmark → unit → value; the -GOMAXPROCS suffix is dropped.
func parseBench(out string) map[string]map[string]float64 {
	res := map[string]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			m[f[i+1]] = v
		}
		res[name] = m
	}
	return res
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// neo4jURI finds a Neo4j for the Bolt benchmark: BACKFILL_NEO4J_URI, else one that
// scripts/neo4j.sh reports running, else (mode "auto") one it starts; stop stops only a server
// started here. An empty uri comes with the reason.
func neo4jURI(ctx context.Context, root, mode string) (uri string, stop func(), why string) {
	stop = func() {}
	if u := os.Getenv("BACKFILL_NEO4J_URI"); u != "" {
		return u, stop, ""
	}
	if mode == "off" {
		return "", stop, "not measured: -neo4j off and BACKFILL_NEO4J_URI unset"
	}
	script := filepath.Join(root, "scripts", "neo4j.sh")
	if _, err := os.Stat(script); err != nil {
		return "", stop, "not measured: no scripts/neo4j.sh and BACKFILL_NEO4J_URI unset"
	}
	if out, err := exec.CommandContext(ctx, script, "status").Output(); err == nil {
		if u := exportedURI(string(out)); u != "" {
			return u, stop, ""
		}
	}
	out, err := exec.CommandContext(ctx, script, "start").Output()
	if err != nil {
		return "", stop, fmt.Sprintf("not measured: scripts/neo4j.sh start failed (%v); set BACKFILL_NEO4J_URI", err)
	}
	u := exportedURI(string(out))
	if u == "" {
		return "", stop, "not measured: scripts/neo4j.sh start printed no BACKFILL_NEO4J_URI"
	}
	return u, func() { _ = exec.Command(script, "stop").Run() }, ""
}

// exportedURI reads "export BACKFILL_NEO4J_URI=…" from a script's output.
func exportedURI(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "export BACKFILL_NEO4J_URI="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}
