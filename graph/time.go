package graph

import (
	"fmt"
	"regexp"
	"time"
)

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

// leapSecond finds the seconds field 60 of a time string (hh:mm:60).
var leapSecond = regexp.MustCompile(`(\d\d:\d\d):60([^0-9]|$)`)

// WithLeapSecond parses s with parse and, when that fails on a leap second (a seconds field of
// 60, as RFC 3339 allows at the end of a UTC day), parses it as :59 and adds one second: the
// leap second 23:59:60Z reads as the next day's 00:00:00Z, as Unix time counts it. A :60
// anywhere but in the last second of a UTC day stays an error.
func WithLeapSecond(s string, parse func(string) (time.Time, error)) (time.Time, error) {
	t, err := parse(s)
	if err == nil || !leapSecond.MatchString(s) {
		return t, err
	}
	loc := leapSecond.FindStringSubmatchIndex(s)
	t59, err59 := parse(s[:loc[3]] + ":59" + s[loc[3]+3:])
	if err59 != nil {
		return t, err
	}
	if u := t59.UTC(); u.Hour() != 23 || u.Minute() != 59 || u.Second() != 59 {
		return t, fmt.Errorf("%w (a leap second :60 is only valid at 23:59:60 UTC)", err)
	}
	return t59.Add(time.Second), nil
}
