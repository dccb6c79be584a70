package evaluation

import (
	"fmt"
	"strings"
	"time"
)

// goldTime is a gold time: an instant, or a range of instants the graph's time must fall in.
type goldTime struct {
	text      string
	from, to  time.Time // [from, to); a zero bound is no bound; from alone for an instant
	instant   bool
	orUnknown bool // an unknown (absent) graph time matches too
}

// Slack around a calendar bound: a day of the gold file is that day in any time zone from
// UTC−12 to UTC+14.
const (
	slackBefore = 14 * time.Hour
	slackAfter  = 12 * time.Hour
)

// parseGoldTime reads a gold time: "-" (unknown, or open), an instant (RFC 3339), a period
// (YYYY, YYYY-MM or YYYY-MM-DD: any time in it), a range "A..B" of periods (either end may be
// left out) or "<=B", the same as "..B". In valid_at, a range without a start also accepts an
// unknown start ("started at or before B").
func parseGoldTime(s string, validAt bool) (*goldTime, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "-", "~", "null":
		return nil, nil
	}
	gt := &goldTime{text: s}
	if rest, ok := strings.CutPrefix(s, "<="); ok {
		s = ".." + strings.TrimSpace(rest)
	}
	if a, b, ok := strings.Cut(s, ".."); ok {
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if a == "" && b == "" {
			return nil, fmt.Errorf("%q: a range needs a start or an end", gt.text)
		}
		if a != "" {
			from, _, err := period(a)
			if err != nil {
				return nil, err
			}
			gt.from = from.Add(-slackBefore)
		}
		if b != "" {
			_, to, err := period(b)
			if err != nil {
				return nil, err
			}
			gt.to = to.Add(slackAfter)
		}
		gt.orUnknown = validAt && a == ""
		if !gt.from.IsZero() && !gt.to.IsZero() && !gt.to.After(gt.from) {
			return nil, fmt.Errorf("%q: the range ends before it starts", gt.text)
		}
		return gt, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		gt.from, gt.instant = t.UTC(), true
		return gt, nil
	}
	from, to, err := period(s)
	if err != nil {
		return nil, err
	}
	gt.from, gt.to = from.Add(-slackBefore), to.Add(slackAfter)
	return gt, nil
}

// period reads YYYY, YYYY-MM or YYYY-MM-DD as the half-open UTC interval it names.
func period(s string) (from, to time.Time, err error) {
	for _, p := range []struct {
		layout string
		next   func(time.Time) time.Time
	}{
		{time.DateOnly, func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
	} {
		if t, err := time.Parse(p.layout, s); err == nil {
			return t, p.next(t), nil
		}
	}
	return from, to, fmt.Errorf("%q is not YYYY, YYYY-MM, YYYY-MM-DD, RFC 3339 or a range A..B of those", s)
}

// matches reports whether a graph time agrees with a gold time (see parseGoldTime).
func (gt *goldTime) matches(t *time.Time) bool {
	switch {
	case gt == nil || t == nil:
		return gt == nil && t == nil || gt != nil && gt.orUnknown
	case gt.instant:
		return t.Equal(gt.from)
	}
	return (gt.from.IsZero() || !t.Before(gt.from)) && (gt.to.IsZero() || t.Before(gt.to))
}

// latest bounds the instants gt allows from above: the instant itself, or the (exclusive) end of
// its range; zero when unbounded.
func (gt *goldTime) latest() time.Time {
	if gt.instant {
		return gt.from
	}
	return gt.to
}

func (gt *goldTime) String() string {
	if gt == nil {
		return "-"
	}
	return gt.text
}
