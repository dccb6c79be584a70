package main

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/tkgraph/backfill/stages"
)

// newProgress shows a progress bar per stage on a terminal and logs a progress line every few
// seconds elsewhere.
func newProgress(w *os.File) stages.Progress {
	if isatty.IsTerminal(w.Fd()) {
		return &barProgress{w: w}
	}
	return &logProgress{every: 5 * time.Second}
}

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(stage string, total int) {
	p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(stage),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("units"),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
}

func (p *barProgress) Add(n int) { _ = p.bar.Add(n) }

func (p *barProgress) Done() { _ = p.bar.Finish() }

// logProgress logs "stage progress" lines with count, rate and ETA.
type logProgress struct {
	mu          sync.Mutex
	every       time.Duration
	stage       string
	total, done int
	start, last time.Time
}

func (p *logProgress) Start(stage string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stage, p.total, p.done = stage, total, 0
	p.start, p.last = time.Now(), time.Now()
}

func (p *logProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if time.Since(p.last) < p.every {
		return
	}
	p.last = time.Now()
	el := time.Since(p.start).Seconds()
	rate := float64(p.done) / el
	attrs := []any{"stage", p.stage, "done", p.done, "rate_per_s", int(rate)}
	if p.total > 0 && rate > 0 {
		attrs = append(attrs, "total", p.total, "eta", time.Duration(float64(p.total-p.done)/rate*float64(time.Second)).Round(time.Second).String())
	}
	slog.Info("progress", attrs...)
}

func (p *logProgress) Done() {}
