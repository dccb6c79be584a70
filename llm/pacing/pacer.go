package pacing

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultConcurrency is the default of PacerOptions.Concurrency: requests in flight at once.
const DefaultConcurrency = 10

// rateMargin slows the RPM bucket a little below rpm/60 per second, so that timer lateness and
// network jitter (up to about 1% of a minute) cannot push a 61st-second call into a window.
const rateMargin = 0.99

// PacerOptions configure a Pacer. Zero values mean: DefaultConcurrency, no RPM or TPM limit,
// the system clock.
type PacerOptions struct {
	Concurrency int   // requests in flight at once
	RPM         int   // requests started per minute; 0 = unlimited
	TPM         int   // estimated tokens per minute; 0 = unlimited
	Clock       Clock // time source of the rate buckets
	// Stop, when closed, makes every later Acquire fail with ErrStopped (requests waiting for
	// a slot included): a draining run starts no new request. nil never stops.
	Stop <-chan struct{}
}

// Clock is the time source of the rate buckets; tests use a fake one.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx ends.
func (SystemClock) Sleep(ctx context.Context, d time.Duration) error { return sleep(ctx, d) }

// ErrStopped is returned by a request refused because the run is draining after an interrupt
// (PacerOptions.Stop): no new request starts, the ones in flight finish.
var ErrStopped = errors.New("stopping: no new request starts while the run drains")

// Pacer is the one gate every LLM and embedding request of a run passes: a bound on requests in
// flight, an RPM token bucket (burst 1, so requests are spread evenly and no 60-second window
// holds more than RPM starts) and a TPM token bucket charged with each request's estimated
// tokens before it starts and corrected with the reported tokens after it ends. It records the
// peak in flight. A Pacer is safe for concurrent use; share one per run.
type Pacer struct {
	slots    chan struct{}
	stop     <-chan struct{}
	rpm, tpm *rate.Limiter // nil when unlimited
	tpmBurst int
	clock    Clock

	mu       sync.Mutex
	inFlight int
	peak     int
	waited   time.Duration // time spent waiting on the rate buckets
}

// NewPacer returns a pacer.
func NewPacer(o PacerOptions) *Pacer {
	if o.Concurrency < 1 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Clock == nil {
		o.Clock = SystemClock{}
	}
	p := &Pacer{slots: make(chan struct{}, o.Concurrency), clock: o.Clock, stop: o.Stop}
	if o.RPM > 0 {
		p.rpm = rate.NewLimiter(rate.Limit(float64(o.RPM)/60*rateMargin), 1)
	}
	if o.TPM > 0 {
		// A tenth of a minute's tokens may start at once: any minute sees at most 1.1 × TPM
		// estimated tokens, and one large request never waits for more than the burst.
		p.tpmBurst = max(o.TPM/10, 1)
		p.tpm = rate.NewLimiter(rate.Limit(float64(o.TPM)/60), p.tpmBurst)
	}
	return p
}

// NewGate returns a pacer that only bounds requests in flight (n < 1 means 1).
func NewGate(n int) *Pacer { return NewPacer(PacerOptions{Concurrency: max(n, 1)}) }

// Acquire waits for a free slot, then for tokens estimated tokens of the TPM bucket, then for
// the RPM bucket, and returns when the request may start (or ctx ended, or Stop closed:
// ErrStopped). Every successful Acquire must be followed by one Release.
func (p *Pacer) Acquire(ctx context.Context, tokens int) error {
	select {
	case <-p.stop:
		return ErrStopped
	default:
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.stop:
		return ErrStopped
	}
	// TPM first, RPM last: a request starts right when its RPM token is due, so the spacing
	// of starts is the spacing of the bucket.
	if p.tpm != nil {
		if err := p.wait(ctx, p.tpm, min(max(tokens, 1), p.tpmBurst)); err != nil {
			<-p.slots
			return err
		}
	}
	if p.rpm != nil {
		if err := p.wait(ctx, p.rpm, 1); err != nil {
			<-p.slots
			return err
		}
	}
	select {
	case <-p.stop: // closed while this request waited on the buckets
		<-p.slots
		return ErrStopped
	default:
	}
	p.mu.Lock()
	p.inFlight++
	p.peak = max(p.peak, p.inFlight)
	p.mu.Unlock()
	return nil
}

// wait takes n tokens of lim, sleeping until they are due; on cancellation it gives them back.
func (p *Pacer) wait(ctx context.Context, lim *rate.Limiter, n int) error {
	now := p.clock.Now()
	r := lim.ReserveN(now, n)
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := p.clock.Sleep(ctx, d); err != nil {
		r.CancelAt(p.clock.Now())
		return err
	}
	p.mu.Lock()
	p.waited += d
	p.mu.Unlock()
	return nil
}

// Release frees the slot taken by Acquire.
func (p *Pacer) Release() {
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	<-p.slots
}

// Settle corrects the TPM bucket once a request's real token count is known: tokens used
// beyond the estimate are charged (later requests wait for them); an overestimate is not
// given back.
func (p *Pacer) Settle(estimated, actual int) {
	if p.tpm == nil || actual <= estimated {
		return
	}
	p.tpm.ReserveN(p.clock.Now(), min(actual-estimated, p.tpmBurst))
}

// Peak is the largest number of requests that were in flight at once.
func (p *Pacer) Peak() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}

// InFlight is the number of requests in flight now.
func (p *Pacer) InFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inFlight
}

// Waited is the total time requests spent waiting on the RPM and TPM buckets.
func (p *Pacer) Waited() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waited
}

// Limit is the number of requests allowed in flight.
func (p *Pacer) Limit() int { return cap(p.slots) }

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
