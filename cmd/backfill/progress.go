package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
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

// tally follows a run's stages for both displays: the stage's units finished by this run and
// done before, its rate over the units this run finished (units done before cost no time), and
// the time the whole run has left. That is the stage's units still to do at its rate, plus the
// requests the later stages are estimated to make (stages.Work, given by Ahead) at the rate
// this run has made requests so far, each unit finished counting the requests its stage's
// estimate gives a unit. Without the estimate (or before a request is counted) the run's time
// left is unknown.
type tally struct {
	stage                 string
	total, done, skipped  int
	start                 time.Time
	ahead                 []stages.Work
	doneRequests, seconds float64 // of the stages this run finished, estimated
}

func (t *tally) begin(stage string, total int, now time.Time) {
	if t.stage != "" {
		t.doneRequests += float64(t.done) * t.perUnit(t.stage)
		t.seconds += now.Sub(t.start).Seconds()
	}
	t.stage, t.total, t.done, t.skipped, t.start = stage, total, 0, 0, now
}

// perUnit is the requests a unit of stage is estimated to make (0 when unknown).
func (t *tally) perUnit(stage string) float64 {
	for _, w := range t.ahead {
		if w.Stage == stage && w.Units > 0 {
			return float64(w.Requests) / float64(w.Units)
		}
	}
	return 0
}

// rate is the stage's units finished by this run per second.
func (t *tally) rate(now time.Time) float64 {
	s := now.Sub(t.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(t.done) / s
}

// left is the time the stage has left at its rate (ok false when unknown: no unit finished yet,
// or an unknown total).
func (t *tally) left(now time.Time) (time.Duration, bool) {
	todo := t.total - t.done - t.skipped
	if t.total < 0 {
		return 0, false
	}
	if todo <= 0 {
		return 0, true
	}
	r := t.rate(now)
	if r <= 0 {
		return 0, false
	}
	return seconds(float64(todo) / r), true
}

// runLeft is the time the run has left (ok false when unknown).
func (t *tally) runLeft(now time.Time) (time.Duration, bool) {
	stageLeft, ok := t.left(now)
	if !ok || t.ahead == nil {
		return 0, false
	}
	later, after := 0, false
	for _, w := range t.ahead {
		if after {
			later += w.Requests
		}
		after = after || w.Stage == t.stage
	}
	if !after { // the stage is not in the estimate (ingest): the estimate is the run's rest
		for _, w := range t.ahead {
			later += w.Requests
		}
	}
	if later == 0 {
		return stageLeft, true
	}
	requests := t.doneRequests + float64(t.done)*t.perUnit(t.stage)
	secs := t.seconds + now.Sub(t.start).Seconds()
	if requests <= 0 || secs <= 0 {
		return 0, false
	}
	return stageLeft + seconds(float64(later)*secs/requests), true
}

func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Second)
}

// rateText writes a rate with two significant digits in plain decimals: 110, 4.2, 0.24, 0.0031.
func rateText(r float64) string {
	if r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return "0"
	}
	unit := math.Pow(10, math.Floor(math.Log10(r))-1)
	return strconv.FormatFloat(math.Round(r/unit)*unit, 'f', max(0, -int(math.Floor(math.Log10(unit)))), 64)
}

type barProgress struct {
	w   io.Writer
	mu  sync.Mutex
	t   tally
	bar *progressbar.ProgressBar
}

func (p *barProgress) Ahead(work []stages.Work) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.ahead = work
}

func (p *barProgress) Start(stage string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.begin(stage, total, time.Now())
	p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(stage),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("units"),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
}

// Add moves the bar, whose description then says the run's time left when it is known.
func (p *barProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.done += n
	if left, ok := p.t.runLeft(time.Now()); ok {
		p.bar.Describe(fmt.Sprintf("%s (run: %s left)", p.t.stage, left))
	}
	_ = p.bar.Add(n)
}

// Skip takes units done before off the bar: it counts, and rates, this run's work only.
func (p *barProgress) Skip(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.skipped += n
	if rest := p.t.total - p.t.skipped; p.t.total >= 0 && rest > 0 {
		p.bar.ChangeMax(rest)
	}
}

func (p *barProgress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Finish()
}

// logProgress logs a "progress" line every few seconds while a stage runs, whether or not a
// unit finished since the last one (a slow model finishes one in minutes): units done (those
// done before included) of the total when known, how many were done before
// (done_before, when any), the rate of the units this run finished in units per second (two
// significant digits in plain decimals, so a slow stage does not show 0), and once a unit is
// finished the stage's time left at that rate (eta) and the whole run's (run_eta, see tally).
type logProgress struct {
	mu    sync.Mutex
	every time.Duration
	t     tally
	stop  chan struct{} // closed by Done or the next Start; nil between stages
}

func (p *logProgress) Ahead(work []stages.Work) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.ahead = work
}

func (p *logProgress) Start(stage string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopLocked()
	p.t.begin(stage, total, time.Now())
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
	now, t := time.Now(), &p.t
	attrs := []any{"stage", t.stage, "done", t.done + t.skipped}
	if t.total >= 0 {
		attrs = append(attrs, "total", t.total)
	}
	attrs = append(attrs, "rate_per_s", rateText(t.rate(now)))
	if left, ok := t.left(now); ok && t.done > 0 {
		attrs = append(attrs, "eta", left.String())
	}
	if left, ok := t.runLeft(now); ok && t.done > 0 {
		attrs = append(attrs, "run_eta", left.String())
	}
	if t.skipped > 0 {
		attrs = append(attrs, "done_before", t.skipped)
	}
	slog.Info("progress", attrs...)
}

func (p *logProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.done += n
}

func (p *logProgress) Skip(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.skipped += n
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
