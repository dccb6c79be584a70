package loaders

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
)

// Named time formats of Spec.TimeFormat; any other non-empty value is a Go layout.
const (
	TimeAuto    = ""
	TimeRFC3339 = "rfc3339"
	TimeEpochS  = "epoch_s"
	TimeEpochMS = "epoch_ms"
	TimeEpochUS = "epoch_us"
	TimeEpochNS = "epoch_ns"
)

// Layouts of the benchmark importers' date strings.
const (
	LoCoMoLayout      = "3:04 pm on 2 January, 2006" // "1:56 pm on 8 May, 2023"
	LongMemEvalLayout = "2006/01/02 (Mon) 15:04"     // "2023/05/20 (Sat) 02:21"
)

// Bounds of a reference time: the span of int64 nanoseconds since 1970.
var (
	minTime = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// zonedLayouts carry their own offset; tried first in auto mode.
var zonedLayouts = []string{
	"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05Z07",
	"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z0700", "2006-01-02 15:04:05Z07",
	"2006-01-02 15:04:05 Z07:00", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 -0700 MST",
	"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00", time.RFC1123Z,
}

// naiveLayouts have no offset; they are read in the spec's timezone.
var naiveLayouts = []string{
	"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04",
	"2006-01-02", "2006/01/02 15:04:05", "2006/01/02 15:04", "2006/01/02",
	LongMemEvalLayout, LoCoMoLayout, "3:04 PM on 2 January, 2006",
}

// checkTimeFormat rejects a layout that cannot describe a date.
func checkTimeFormat(f string) error {
	switch f {
	case TimeAuto, TimeRFC3339, TimeEpochS, TimeEpochMS, TimeEpochUS, TimeEpochNS:
		return nil
	}
	if !strings.ContainsAny(f, "0126") { // a layout names at least a year, month or day
		return fmt.Errorf("time format %q is neither a named format nor a Go layout", f)
	}
	return nil
}

// ParseTime turns v (a string, a json.Number, an integer or float, or a time.Time) into a UTC time
// using layout (see Spec.TimeFormat); naive values are read in loc (nil = UTC). In auto mode
// numbers and numeric strings are Unix epochs whose unit follows from their magnitude (below 1e11
// seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds), and strings are
// tried against RFC 3339/ISO-8601 variants, then naive date-times, including the LoCoMo and
// LongMemEval forms.
func ParseTime(v any, layout string, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	t, err := parseTime(v, layout, loc)
	if err != nil {
		return time.Time{}, err
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return time.Time{}, fmt.Errorf("time %s is outside years 1678..2261", t.UTC().Format(time.RFC3339Nano))
	}
	return t.UTC(), nil
}

func parseTime(v any, layout string, loc *time.Location) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		return parseTimeString(strings.TrimSpace(x), layout, loc)
	case json.Number:
		return parseTimeString(string(x), layout, loc)
	case int:
		return parseEpochNumber(float64(x), int64(x), true, layout, loc)
	case int32:
		return parseEpochNumber(float64(x), int64(x), true, layout, loc)
	case int64:
		return parseEpochNumber(float64(x), x, true, layout, loc)
	case float32:
		return parseEpochNumber(float64(x), 0, false, layout, loc)
	case float64:
		return parseEpochNumber(x, 0, false, layout, loc)
	case nil:
		return time.Time{}, errors.New("missing")
	}
	return time.Time{}, fmt.Errorf("cannot read a time from a %T", v)
}

func parseTimeString(s, layout string, loc *time.Location) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("empty")
	}
	return graph.WithLeapSecond(s, func(s string) (time.Time, error) { return parseTimeText(s, layout, loc) })
}

// parseTimeText is parseTimeString without leap seconds.
func parseTimeText(s, layout string, loc *time.Location) (time.Time, error) {
	switch layout {
	case TimeAuto:
		if isNumeric(s) {
			return parseEpochString(s, layout, loc)
		}
		return parseAuto(s, loc)
	case TimeRFC3339:
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("not an RFC 3339 time: %q", clip(s))
		}
		return t, nil
	case TimeEpochS, TimeEpochMS, TimeEpochUS, TimeEpochNS:
		if !isNumeric(s) {
			return time.Time{}, fmt.Errorf("not a number: %q", clip(s))
		}
		return parseEpochString(s, layout, loc)
	}
	if _, err := time.ParseInLocation(layout, s, loc); err != nil {
		return time.Time{}, fmt.Errorf("%q does not match layout %q", clip(s), layout)
	}
	return parseIn(layout, s, loc)
}

func parseAuto(s string, loc *time.Location) (time.Time, error) {
	for _, l := range zonedLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	for _, l := range naiveLayouts {
		if _, err := time.ParseInLocation(l, s, loc); err == nil {
			return parseIn(l, s, loc)
		}
	}
	return time.Time{}, fmt.Errorf("unrecognized time %q", clip(s))
}

// clip shortens s to at most 64 bytes (on a rune boundary) for an error message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	n := 64
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// wallClockIn reads the wall clock of wall (its fields, whatever its location) in loc. A wall
// clock that loc skips (a DST gap) is an error: time.Date would move it silently.
func wallClockIn(wall time.Time, loc *time.Location) (time.Time, error) {
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), loc)
	if !sameWallClock(t, wall) {
		return time.Time{}, fmt.Errorf("wall-clock time %s does not exist in %s (a daylight saving gap)",
			wall.Format("2006-01-02T15:04:05.999999999"), loc)
	}
	return t, nil
}

// sameWallClock reports whether two times show the same date and time of day, each in its own
// location.
func sameWallClock(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Hour() == b.Hour() && a.Minute() == b.Minute() &&
		a.Second() == b.Second() && a.Nanosecond() == b.Nanosecond()
}

// parseIn is time.ParseInLocation that fails instead of moving a wall clock loc skips (a DST
// gap): the time must show the wall clock the text wrote.
func parseIn(layout, s string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation(layout, s, loc)
	if err != nil {
		return t, err
	}
	if written, err := time.Parse(layout, s); err == nil && !sameWallClock(t, written) {
		return time.Time{}, fmt.Errorf("wall-clock time %q does not exist in %s (a daylight saving gap)", clip(s), loc)
	}
	return t, nil
}
