package main

import (
	"io"
	"log/slog"
	"os"
	"strconv"
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

// logProgress logs a "progress" line every few seconds while a stage runs, whether or not a
// unit finished since the last one (a slow model finishes one in minutes): units done (of the
// total when known), the rate in units per second (two significant digits, so a slow stage does
// not show 0) and, once a unit is done, the time left at that rate.
type logProgress struct {
	mu          sync.Mutex
	every       time.Duration
	stage       string
	total, done int
	start       time.Time
	stop        chan struct{} // closed by Done or the next Start; nil between stages
}

func (p *logProgress) Start(stage string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	p.stage, p.total, p.done, p.start = stage, total, 0, time.Now()
	stop := make(chan struct{})
	p.stop = stop
	go p.tick(stop)
}

// tick logs a line every p.every until stop is closed.
func (p *logProgress) tick(stop chan struct{}) {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.log(stop)
		}
	}
}

// log writes the line of the stage that stop belongs to, unless that stage has ended.
func (p *logProgress) log(stop chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != stop {
		return
	}
	rate := float64(p.done) / time.Since(p.start).Seconds()
	attrs := []any{"stage", p.stage, "done", p.done}
	if p.total >= 0 {
		attrs = append(attrs, "total", p.total)
	}
	attrs = append(attrs, "rate_per_s", strconv.FormatFloat(rate, 'g', 2, 64))
	if p.total > p.done && rate > 0 {
		attrs = append(attrs, "eta", time.Duration(float64(p.total-p.done)/rate*float64(time.Second)).Round(time.Second).String())
	}
	slog.Info("progress", attrs...)
}

func (p *logProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
}

func (p *logProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
}

func (p *logProgress) stopLocked() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}
