package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// session is one bash process that runs a document's commands one after the other, as a reader
// types them into one terminal: a variable an `eval "$(scripts/x.sh start)"` sets, or a job
// started with `&`, is there for the commands after it. Each command's stdout and stderr go to
// files of their own and its exit status comes back on bash's stdout after a marker line, so
// one command's result is told from the next one's.
type session struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	dir    string // where the command outputs are written
	n      int
	broken error // the session cannot run more commands (bash died, a command timed out)
	closed bool
}

// sessionDone marks the end of a command on bash's stdout, followed by its exit status.
const sessionDone = "\x1e backfill-doc-command-done "

// newSession starts bash in dir with env added to the test's environment; the process group
// is killed when the session closes.
func newSession(dir string, env []string) (*session, error) {
	tmp, err := os.MkdirTemp("", "backfill-session-*")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard // each command's stderr goes to its own file
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &session{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), dir: tmp}, nil
}

// run runs one command line (continuation lines included) in the session, its stdin closed, and
// returns how it ended. A command that outlives timeout breaks the session: it is killed with
// everything the session started.
func (s *session) run(line string, timeout time.Duration) (harness.Result, error) {
	if s.broken != nil {
		return harness.Result{}, s.broken
	}
	s.n++
	stdout, stderr := filepath.Join(s.dir, fmt.Sprintf("%d.out", s.n)), filepath.Join(s.dir, fmt.Sprintf("%d.err", s.n))
	script := fmt.Sprintf("{ %s\n} >%q 2>%q </dev/null\nprintf '\\n%s%%d\\n' \"$?\"\n", line, stdout, stderr, sessionDone)
	if _, err := io.WriteString(s.stdin, script); err != nil {
		s.broken = fmt.Errorf("the shell session ended: %w", err)
		return harness.Result{}, s.broken
	}
	type done struct {
		code int
		err  error
	}
	ch := make(chan done, 1)
	go func() {
		for {
			l, err := s.out.ReadString('\n')
			if rest, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), sessionDone); ok {
				code, err := strconv.Atoi(rest)
				ch <- done{code, err}
				return
			}
			if err != nil {
				ch <- done{-1, fmt.Errorf("the shell session ended: %w", err)}
				return
			}
		}
	}()
	start := time.Now()
	var d done
	select {
	case d = <-ch:
	case <-time.After(timeout):
		s.close()
		s.broken = fmt.Errorf("%s: still running after %s; the session was killed", line, timeout)
		return harness.Result{}, s.broken
	}
	if d.err != nil {
		s.broken = d.err
		return harness.Result{}, d.err
	}
	o, _ := os.ReadFile(stdout)
	e, _ := os.ReadFile(stderr)
	return harness.Result{Code: d.code, Stdout: string(o), Stderr: string(e), Elapsed: time.Since(start)}, nil
}

// close ends the session: bash reads end of input and exits, and whatever it left running
// (a server or a job started with &) is killed with its process group.
func (s *session) close() {
	if s.closed {
		return
	}
	s.closed = true
	_ = s.stdin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	waited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-waited
	os.RemoveAll(s.dir)
}
