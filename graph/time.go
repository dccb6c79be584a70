package graph

import "time"

// UTC returns a pointer to t in UTC, or nil when t is zero.
func UTC(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// Before reports whether a is before b, treating nil as unknown (false).
func Before(a, b *time.Time) bool { return a != nil && b != nil && a.Before(*b) }

// SameTime reports whether two optional times are equal (both nil, or the same instant).
func SameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// Clock gives the wall-clock time; tests inject a fixed one.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// FixedClock always returns the same instant.
type FixedClock time.Time

// Now returns the fixed instant in UTC.
func (c FixedClock) Now() time.Time { return time.Time(c).UTC() }
