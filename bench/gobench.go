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

// server is an integration server a benchmark step needs: the script that starts it and the
// variable holding its URI.
type server struct{ script, env string }

var (
	neo4jServer    = server{"neo4j.sh", "BACKFILL_NEO4J_URI"}
	falkordbServer = server{"falkordb.sh", "BACKFILL_FALKORDB_URI"}
)

// uri finds the server for a benchmark: its variable, else one its script reports running,
// else (mode "auto") one the script starts; stop stops only a server started here. An empty
// uri comes with the reason.
func (s server) uri(ctx context.Context, root, mode string) (uri string, stop func(), why string) {
	stop = func() {}
	if u := os.Getenv(s.env); u != "" {
		return u, stop, ""
	}
	if mode == "off" {
		return "", stop, fmt.Sprintf("not measured: server off and %s unset", s.env)
	}
	script := filepath.Join(root, "scripts", s.script)
	if _, err := os.Stat(script); err != nil {
		return "", stop, fmt.Sprintf("not measured: no scripts/%s and %s unset", s.script, s.env)
	}
	if out, err := exec.CommandContext(ctx, script, "status").Output(); err == nil {
		if u := exportedURI(string(out), s.env); u != "" {
			return u, stop, ""
		}
	}
	out, err := exec.CommandContext(ctx, script, "start").Output()
	if err != nil {
		return "", stop, fmt.Sprintf("not measured: scripts/%s start failed (%v); set %s", s.script, err, s.env)
	}
	u := exportedURI(string(out), s.env)
	if u == "" {
		return "", stop, fmt.Sprintf("not measured: scripts/%s start printed no %s", s.script, s.env)
	}
	return u, func() { _ = exec.Command(script, "stop").Run() }, ""
}

// exportedURI reads "export VAR=…" from a script's output.
func exportedURI(out, env string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "export "+env+"="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}
