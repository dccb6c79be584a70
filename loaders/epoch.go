package loaders

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// isNumeric reports whether s is a decimal number: [+-]digits[.digits][(e|E)[+-]digits].
func isNumeric(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	sign := func() {
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
	}
	sign()
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		sign()
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func parseEpochString(s, layout string, loc *time.Location) (time.Time, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return parseEpochNumber(float64(i), i, true, layout, loc)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("not a number: %q", clip(s))
	}
	return parseEpochNumber(f, 0, false, layout, loc)
}

// parseEpochNumber reads a Unix epoch; i is exact when isInt. A Go layout formats the number
// as text and parses that (e.g. 20230520 with layout "20060102").
func parseEpochNumber(f float64, i int64, isInt bool, layout string, loc *time.Location) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, fmt.Errorf("not a finite number: %v", f)
	}
	var perSec float64
	switch layout {
	case TimeEpochS:
		perSec = 1
	case TimeEpochMS:
		perSec = 1e3
	case TimeEpochUS:
		perSec = 1e6
	case TimeEpochNS:
		perSec = 1e9
	case TimeAuto:
		switch a := math.Abs(f); {
		case a < 1e11:
			perSec = 1
		case a < 1e14:
			perSec = 1e3
		case a < 1e17:
			perSec = 1e6
		default:
			perSec = 1e9
		}
	case TimeRFC3339:
		return time.Time{}, fmt.Errorf("a number is not an RFC 3339 time: %v", f)
	default:
		s := strconv.FormatInt(i, 10)
		if !isInt {
			s = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return parseTimeString(s, layout, loc)
	}
	if isInt {
		n := int64(perSec)
		if i/n > 1e13 || i/n < -1e13 {
			return time.Time{}, fmt.Errorf("epoch %d is out of range", i)
		}
		return time.Unix(i/n, (i%n)*(1e9/n)), nil
	}
	sec := f / perSec
	if math.Abs(sec) > 1e13 {
		return time.Time{}, fmt.Errorf("epoch %v is out of range", f)
	}
	// Whole microseconds: a float64 holds no more precision than that for current dates.
	us := math.Round(sec * 1e6)
	return time.UnixMicro(int64(us)), nil
}
