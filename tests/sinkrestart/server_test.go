package sinkrestart

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// readyTimeout bounds one Neo4j start (about 10-15 s on this machine).
const readyTimeout = 150 * time.Second

// server is a private embedded Neo4j: one launcher process at a time on a fixed home directory
// and port, so that a restart brings the same database back.
type server struct {
	java, jar, home, logPath string
	port                     int
	URI                      string

	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// launcher finds the launcher jar and a Java runtime, failing t with how to build the jar, or
// skipping it with BACKFILL_SKIP_INTEGRATION=1, when one is missing.
func launcher(t *testing.T, root string) (java, jar string) {
	t.Helper()
	missing := func(what string) {
		if os.Getenv("BACKFILL_SKIP_INTEGRATION") == "1" {
			t.Skipf("integration test skipped (BACKFILL_SKIP_INTEGRATION=1): %s", what)
		}
		t.Fatalf("%s: build it with `scripts/neo4j.sh start` (or set BACKFILL_SKIP_INTEGRATION=1 to skip integration tests)", what)
	}
	jar = filepath.Join(root, "testinfra", "neo4j", "target", "neo4j-launcher.jar")
	if _, err := os.Stat(jar); err != nil {
		missing("the Neo4j launcher " + jar + " is missing")
	}
	switch jh := os.Getenv("JAVA_HOME"); {
	case jh != "" && executable(filepath.Join(jh, "bin", "java")):
		java = filepath.Join(jh, "bin", "java")
	case executable("/usr/lib/jvm/java-17-openjdk-amd64/bin/java"):
		java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
	default:
		p, err := exec.LookPath("java")
		if err != nil {
			missing("java (17+) is not installed")
		}
		java = p
	}
	return java, jar
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// startServer starts a Neo4j in a new temporary home on a free port and kills it when t ends.
func startServer(t *testing.T, root string) *server {
	t.Helper()
	java, jar := launcher(t, root)
	dir := t.TempDir()
	port := harness.FreePort(t)
	s := &server{java: java, jar: jar, home: filepath.Join(dir, "home"), logPath: filepath.Join(dir, "neo4j.log"),
		port: port, URI: fmt.Sprintf("bolt://127.0.0.1:%d", port)}
	t.Cleanup(s.kill)
	if err := s.start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// start launches the server and waits for its READY line.
func (s *server) start(ctx context.Context) error {
	if s.running() {
		return fmt.Errorf("starting neo4j: already running (pid %d)", s.cmd.Process.Pid)
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("starting neo4j: %w", err)
	}
	cmd := exec.Command(s.java, "-Xmx512m", "-XX:+UseSerialGC", "-jar", s.jar, s.home, fmt.Sprint(s.port))
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no orphan if the test dies
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		logf.Close()
		return fmt.Errorf("starting neo4j: %w", err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	ready := make(chan struct{})
	var once sync.Once
	go func() { // copies stdout to the log, spots READY, reaps the process
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(logf, sc.Text())
			if strings.HasPrefix(sc.Text(), "READY ") {
				once.Do(func() { close(ready) })
			}
		}
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	t := time.NewTimer(readyTimeout)
	defer t.Stop()
	select {
	case <-ready:
		return nil
	case <-done:
		return fmt.Errorf("starting neo4j: it exited before it was ready (%v); log:\n%s", cmd.ProcessState, s.logTail())
	case <-t.C:
		s.kill()
		return fmt.Errorf("starting neo4j: not ready within %s; log:\n%s", readyTimeout, s.logTail())
	case <-ctx.Done():
		s.kill()
		return fmt.Errorf("starting neo4j: %w", ctx.Err())
	}
}

// running reports whether the launcher process is alive.
func (s *server) running() bool {
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// kill crashes the server (SIGKILL) and waits for the process to be gone; it does nothing when
// the server is not running.
func (s *server) kill() {
	if !s.running() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// logTail returns the last lines of the server's log.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.logPath)
	return harness.Tail(string(b), 30)
}
