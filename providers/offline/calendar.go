package offline

import "time"

// Calendar helpers. Dates are calendar days at 00:00 UTC, computed from the reference time's
// UTC calendar day.

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func dayOf(t time.Time) time.Time {
	t = t.UTC()
	return day(t.Year(), t.Month(), t.Day())
}

func monthStart(t time.Time) time.Time { return day(t.Year(), t.Month(), 1) }

func monthEnd(t time.Time) time.Time { return day(t.Year(), t.Month()+1, 0) }

// mondayOf is the Monday of t's week (weeks start on Monday).
func mondayOf(t time.Time) time.Time {
	t = dayOf(t)
	return t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7))
}

// weekdayIndex is 0 for Monday … 6 for Sunday.
func weekdayIndex(w time.Weekday) int { return (int(w) + 6) % 7 }

// monthDay resolves a month and day without a year: the nearest such day on or after the
// reference day when forward, else on or before it.
func monthDay(ref time.Time, m time.Month, d int, forward bool) time.Time {
	today := dayOf(ref)
	t := day(today.Year(), m, d)
	switch {
	case forward && t.Before(today):
		t = day(today.Year()+1, m, d)
	case !forward && t.After(today):
		t = day(today.Year()-1, m, d)
	}
	return t
}

// monthOnly resolves a month without a year to its first day, like monthDay.
func monthOnly(ref time.Time, m time.Month, forward bool) time.Time {
	this := monthStart(ref)
	t := day(this.Year(), m, 1)
	switch {
	case forward && t.Before(this):
		t = day(this.Year()+1, m, 1)
	case !forward && t.After(this):
		t = day(this.Year()-1, m, 1)
	}
	return t
}

// weekdayNear resolves a weekday name. modifier is "next" (that day of next week), "last" (of
// last week), "this" (of this week) or "" (the nearest one ahead when forward, else behind).
func weekdayNear(ref time.Time, wd time.Weekday, modifier string, forward bool) time.Time {
	idx := weekdayIndex(wd)
	switch modifier {
	case "next":
		return mondayOf(ref).AddDate(0, 0, 7+idx)
	case "last":
		return mondayOf(ref).AddDate(0, 0, -7+idx)
	case "this":
		return mondayOf(ref).AddDate(0, 0, idx)
	}
	today := dayOf(ref)
	diff := idx - weekdayIndex(today.Weekday())
	if forward {
		return today.AddDate(0, 0, (diff+7)%7)
	}
	return today.AddDate(0, 0, -((-diff + 7) % 7))
}

// shift moves the reference day by n units ("day", "week", "month", "year").
func shift(ref time.Time, n int, unit string) time.Time {
	t := dayOf(ref)
	switch unit {
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	}
	return t.AddDate(0, 0, n)
}

// periodStart is the first day of the period (week, month, year) n periods from the reference.
func periodStart(ref time.Time, n int, unit string) time.Time {
	switch unit {
	case "week":
		return dayOf(ref).AddDate(0, 0, 7*n)
	case "month":
		return monthStart(ref).AddDate(0, n, 0)
	case "year":
		return day(ref.UTC().Year()+n, time.January, 1)
	}
	return dayOf(ref).AddDate(0, 0, n)
}

// periodEnd is the last day of the period (week, month, year) n periods from the reference.
func periodEnd(ref time.Time, n int, unit string) time.Time {
	switch unit {
	case "week":
		return mondayOf(ref).AddDate(0, 0, 7*n+6)
	case "month":
		return monthEnd(monthStart(ref).AddDate(0, n, 0))
	case "year":
		return day(ref.UTC().Year()+n, time.December, 31)
	}
	return dayOf(ref).AddDate(0, 0, n)
}
