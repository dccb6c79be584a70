package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Event is a stage starting or finishing, as the run logged it.
type Event struct {
	Stage    string
	Finished bool          // "stage finished" (else "stage starting")
	At       time.Duration // since the process started
}

// Result is how a process ended.
type Result struct {
	Code      int    // exit code; -1 when killed by a signal
	Signal    string // the signal that killed it, if any
	Stdout    string
	Stderr    string
	Elapsed   time.Duration
	Events    []Event
	MaxRSSKiB int64            // peak resident set size (rusage)
	CPU       time.Duration    // user and system CPU time (rusage)
	StageRSS  map[string]int64 // peak sampled RSS (KiB) while each stage ran, when sampled
	FileBytes map[string]int64 // largest sampled size of each Options.SampleFiles file
}

// Options tune Start.
type Options struct {
	Dir       string        // working directory ("" = current)
	Env       []string      // added to the environment
	SampleRSS time.Duration // sample /proc/PID/status VmRSS this often (0 = no sampling)
	// SampleFiles are files (such as a checkpoint's -wal) whose size is sampled with the RSS.
	SampleFiles []string
	// SysProcAttr, when set, is the process's (e.g. a Credential to run it as another user).
	SysProcAttr *syscall.SysProcAttr
}

// Proc is a running backfill subprocess whose log is followed live.
type Proc struct {
	cmd     *exec.Cmd
	start   time.Time
	stdout  bytes.Buffer
	mu      sync.Mutex
	stderr  bytes.Buffer
	events  []Event
	changed chan struct{} // closed and replaced whenever events change or the process ends
	exited  bool
	rss     map[string]int64
	files   map[string]int64
	logDone chan struct{}
	rssDone chan struct{}
}

// Start runs bin with args and follows its stderr.
func Start(ctx context.Context, bin string, args []string, o Options) (*Proc, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.SysProcAttr = o.SysProcAttr
	p := &Proc{cmd: cmd, changed: make(chan struct{}), rss: map[string]int64{}, files: map[string]int64{},
		logDone: make(chan struct{}), rssDone: make(chan struct{})}
	cmd.Stdout = &p.stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go p.follow(errPipe)
	if o.SampleRSS > 0 {
		go p.sample(o.SampleRSS, o.SampleFiles)
	} else {
		close(p.rssDone)
	}
	return p, nil
}

// follow reads the log line by line and records stage events. The end of the log (the process
// closed stderr: it ended) marks the process as exited.
func (p *Proc) follow(r io.Reader) {
	defer close(p.logDone)
	defer func() {
		p.mu.Lock()
		p.exited = true
		p.notifyLocked()
		p.mu.Unlock()
	}()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			p.mu.Lock()
			p.stderr.WriteString(line)
			if ev, ok := parseEvent(line); ok {
				ev.At = time.Since(p.start)
				p.events = append(p.events, ev)
			}
			p.notifyLocked()
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// parseEvent reads a slog text line such as `msg="stage starting" stage=extract`.
func parseEvent(line string) (Event, bool) {
	var ev Event
	switch {
	case strings.Contains(line, `msg="stage starting"`):
	case strings.Contains(line, `msg="stage finished"`):
		ev.Finished = true
	default:
		return ev, false
	}
	_, rest, ok := strings.Cut(line, " stage=")
	if !ok {
		return ev, false
	}
	ev.Stage, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
	return ev, ev.Stage != ""
}

func (p *Proc) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Stage returns the stage that started last ("" before the first).
func (p *Proc) Stage() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.events) - 1; i >= 0; i-- {
		if !p.events[i].Finished {
			return p.events[i].Stage
		}
	}
	return ""
}

// WaitStage waits until stage has started and returns true, or returns false when the process
// ended first or ctx is done.
func (p *Proc) WaitStage(ctx context.Context, stage string) bool {
	return p.await(ctx, func() bool {
		for _, ev := range p.events {
			if ev.Stage == stage && !ev.Finished {
				return true
			}
		}
		return false
	})
}

// WaitLine waits for a log line containing substr and returns it, or returns false when the
// process ended first or ctx is done.
func (p *Proc) WaitLine(ctx context.Context, substr string) (string, bool) {
	var found string
	ok := p.await(ctx, func() bool {
		lines := p.lines(substr)
		if len(lines) > 0 {
			found = lines[0]
		}
		return len(lines) > 0
	})
	return found, ok
}

// WaitLines waits until n log lines contain substr and returns true, or returns false when the
// process ended first or ctx is done.
func (p *Proc) WaitLines(ctx context.Context, substr string, n int) bool {
	return p.await(ctx, func() bool { return len(p.lines(substr)) >= n })
}

// lines are the complete log lines so far that contain substr, without their newline; p.mu is
// held.
func (p *Proc) lines(substr string) []string {
	var out []string
	for _, l := range strings.SplitAfter(p.stderr.String(), "\n") {
		if strings.HasSuffix(l, "\n") && strings.Contains(l, substr) {
			out = append(out, strings.TrimSuffix(l, "\n"))
		}
	}
	return out
}

// await waits until found (called with p.mu held, whenever the log or the events change)
// reports true, and returns true; or returns false when the process ended first or ctx is done.
func (p *Proc) await(ctx context.Context, found func() bool) bool {
	for {
		p.mu.Lock()
		ok, exited, changed := found(), p.exited, p.changed
		p.mu.Unlock()
		if ok {
			return true
		}
		if exited {
			return false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Wait waits for the process to end and returns how it ended. A non-zero exit is not an error.
func (p *Proc) Wait() (Result, error) {
	<-p.logDone // the pipe must be drained before cmd.Wait closes it
	err := p.cmd.Wait()
	elapsed := time.Since(p.start)
	<-p.rssDone
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return Result{}, fmt.Errorf("waiting for backfill: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	res := Result{Code: p.cmd.ProcessState.ExitCode(), Stdout: p.stdout.String(), Stderr: p.stderr.String(),
		Elapsed: elapsed, Events: append([]Event(nil), p.events...)}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Signal = ws.Signal().String()
	}
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSSKiB = ru.Maxrss // KiB on Linux
		res.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if len(p.rss) > 0 {
		res.StageRSS = maps.Clone(p.rss)
	}
	if len(p.files) > 0 {
		res.FileBytes = maps.Clone(p.files)
	}
	return res, nil
}

// Run starts bin with args and waits for it.
func Run(ctx context.Context, bin string, args []string, o Options) (Result, error) {
	p, err := Start(ctx, bin, args, o)
	if err != nil {
		return Result{}, err
	}
	return p.Wait()
}
