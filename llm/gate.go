package llm

import (
	"context"
	"sync"
)

// Gate bounds the number of requests in flight and records the peak. It is the minimal form of
// the pacer: a later version adds RPM/TPM buckets behind the same Acquire/Release pair.
type Gate struct {
	slots chan struct{}

	mu       sync.Mutex
	inFlight int
	peak     int
}

// NewGate returns a gate admitting at most n requests at once (n < 1 means 1).
func NewGate(n int) *Gate {
	if n < 1 {
		n = 1
	}
	return &Gate{slots: make(chan struct{}, n)}
}

// Acquire waits for a free slot or for ctx to end.
func (g *Gate) Acquire(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.inFlight++
	g.peak = max(g.peak, g.inFlight)
	g.mu.Unlock()
	return nil
}

// Release frees a slot taken by Acquire.
func (g *Gate) Release() {
	g.mu.Lock()
	g.inFlight--
	g.mu.Unlock()
	<-g.slots
}

// Peak is the largest number of requests that were in flight at once.
func (g *Gate) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// Limit is the number of slots.
func (g *Gate) Limit() int { return cap(g.slots) }
