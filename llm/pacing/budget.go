package pacing

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrBudgetExceeded is the sentinel of a budget stop: errors.Is(err, ErrBudgetExceeded) tells a
// clean stop on limits.max_cost_usd from a failure.
var ErrBudgetExceeded = errors.New("budget exceeded")

// BudgetError reports a request refused because the run's spending would pass its limit.
type BudgetError struct {
	LimitUSD float64
	SpentUSD float64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("budget of $%.4f reached ($%.4f spent)", e.LimitUSD, e.SpentUSD)
}

// Is makes errors.Is(err, ErrBudgetExceeded) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// Budget caps what the requests of one run may cost. Before a request it reserves the
// request's estimated cost; once a reservation would pass the limit it stops for good and
// refuses every later request. A nil *Budget or a limit ≤ 0 never refuses. Cached answers
// cost nothing: they make no request. Safe for concurrent use.
type Budget struct {
	limit float64

	mu       sync.Mutex
	spent    float64
	reserved float64
	open     int           // reservations not settled yet
	settled  chan struct{} // closed while open == 0
	stopped  bool
}

// NewBudget returns a budget of limitUSD (≤ 0: unlimited).
func NewBudget(limitUSD float64) *Budget {
	b := &Budget{limit: limitUSD, settled: make(chan struct{})}
	close(b.settled)
	return b
}

// Reserve books est dollars for a request about to start, or returns a *BudgetError if spent,
// reserved and est together pass the limit, or if the budget has stopped already.
func (b *Budget) Reserve(est float64) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped || b.spent+b.reserved+est > b.limit {
		b.stopped = true
		return &BudgetError{LimitUSD: b.limit, SpentUSD: b.spent}
	}
	b.reserved += est
	if b.open == 0 {
		b.settled = make(chan struct{})
	}
	b.open++
	return nil
}

// Settle replaces a reservation of est (made by a successful Reserve) by the request's actual cost (0 for a failed attempt).
func (b *Budget) Settle(est, actual float64) {
	if b == nil || b.limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved = max(b.reserved-est, 0)
	b.spent += actual
	if b.open--; b.open == 0 {
		close(b.settled)
	}
}

// Charge adds delta dollars (negative: a refund) to what was spent, outside any reservation:
// a provider batch is booked at its estimate when submitted (Reserve, then Settle with the
// estimate) and corrected by the difference once its answers are priced.
func (b *Budget) Charge(delta float64) {
	if b == nil || b.limit <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent = max(b.spent+delta, 0)
}

// Wait waits until every reservation is settled (no admitted request is still running), or
// ctx ends. A budget stop uses it to let the paid requests finish before the run stops.
func (b *Budget) Wait(ctx context.Context) error {
	if b == nil || b.limit <= 0 {
		return nil
	}
	b.mu.Lock()
	ch := b.settled
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stopped reports whether the budget has refused a request.
func (b *Budget) Stopped() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}
