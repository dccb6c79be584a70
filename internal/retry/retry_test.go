package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestBackoffBounds(t *testing.T) {
	tests := []struct {
		name     string
		p        Policy
		attempt  int
		min, max time.Duration
	}{
		{"full, first", Policy{Base: 100 * time.Millisecond, Jitter: Full}, 1, 0, 100 * time.Millisecond},
		{"full, doubled", Policy{Base: 100 * time.Millisecond, Jitter: Full}, 3, 0, 400 * time.Millisecond},
		{"full, capped", Policy{Base: 100 * time.Millisecond, Max: time.Second, Jitter: Full}, 20, 0, time.Second},
		{"spread, first", Policy{Base: 100 * time.Millisecond, Jitter: Spread}, 1, 50 * time.Millisecond, 150 * time.Millisecond},
		{"spread, capped", Policy{Base: time.Second, Max: 10 * time.Second, Jitter: Spread}, 40, 5 * time.Second, 15 * time.Second},
		{"no base", Policy{}, 3, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi := time.Duration(1<<62), time.Duration(0)
			for range 2000 {
				d := tc.p.Backoff(tc.attempt)
				lo, hi = min(lo, d), max(hi, d)
			}
			if lo < tc.min || hi > tc.max {
				t.Fatalf("pauses in [%v, %v], want within [%v, %v]", lo, hi, tc.min, tc.max)
			}
			// The draws cover the range: full jitter reaches its lowest quarter, spread its ends.
			if span := tc.max - tc.min; span > 0 && (lo > tc.min+span/4 || hi < tc.max-span/4) {
				t.Errorf("pauses in [%v, %v] do not spread over [%v, %v]", lo, hi, tc.min, tc.max)
			}
		})
	}
}

func TestDo(t *testing.T) {
	transient, fatal := errors.New("transient"), errors.New("fatal")
	classify := func(err error) (bool, time.Duration) {
		return errors.Is(err, transient), 0
	}
	tests := []struct {
		name      string
		attempts  int
		errs      []error // the error of each try; past the end, nil
		wantTries int
		wantErr   error
		wantWaits int
	}{
		{"first try", 3, nil, 1, nil, 0},
		{"retried then ok", 3, []error{transient, transient}, 3, nil, 2},
		{"out of attempts", 3, []error{transient, transient, transient, transient}, 3, transient, 2},
		{"fatal at once", 3, []error{transient, fatal}, 2, fatal, 1},
		{"at least one try", 0, []error{transient}, 1, transient, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			waits := 0
			tries, err := Do(context.Background(), Policy{Attempts: tc.attempts, Base: time.Microsecond}, classify,
				func(int, error, time.Duration) { waits++ },
				func(_ context.Context, attempt int) error {
					if attempt-1 < len(tc.errs) {
						return tc.errs[attempt-1]
					}
					return nil
				})
			if tries != tc.wantTries || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) || waits != tc.wantWaits {
				t.Fatalf("tries %d, err %v, waits %d; want %d, %v, %d", tries, err, waits, tc.wantTries, tc.wantErr, tc.wantWaits)
			}
		})
	}
}

func TestDoHonoursAfterAndCancel(t *testing.T) {
	transient := errors.New("busy")
	var asked time.Duration
	_, err := Do(context.Background(), Policy{Attempts: 2, Base: time.Hour, MaxWait: time.Millisecond},
		func(error) (bool, time.Duration) { return true, time.Hour },
		func(_ int, _ error, wait time.Duration) { asked = wait },
		func(_ context.Context, attempt int) error {
			if attempt == 1 {
				return transient
			}
			return nil
		})
	if err != nil || asked != time.Millisecond {
		t.Fatalf("err %v, wait %v; want the asked pause capped at MaxWait", err, asked)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tries, err := Do(ctx, Policy{Attempts: 5, Base: time.Hour}, func(error) (bool, time.Duration) { return true, 0 },
		func(int, error, time.Duration) { cancel() },
		func(context.Context, int) error { return transient })
	if tries != 1 || !errors.Is(err, context.Canceled) || errors.Is(err, transient) {
		t.Fatalf("tries %d, err %v; want 1 try and a cancellation that no longer wraps the try's error", tries, err)
	}
}
