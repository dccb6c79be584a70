package offline

import (
	"regexp"
	"strings"
	"time"
)

const (
	enRoleOpt = `(?i)\b(?:(?P<role>since|from|starting from|starting|as of|until|till|til|through|thru|to|by|before|after|on|in|at|during)\s+)?(?:the\s+)?`
	enRoleReq = `(?i)\b(?P<role>since|from|starting from|starting|as of|until|till|til|through|to|by|before|after|in|during)\s+(?:the\s+)?(?:early\s+|late\s+|mid-?)?`
	enMonth   = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`
	enWeekday = `(monday|tuesday|wednesday|thursday|friday|saturday|sunday)`
	enCount   = `(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|few|several|a couple of|couple of|\d{1,3})`
)

// enDateRules are the English date patterns.
var enDateRules = []dateRule{
	{regexp.MustCompile(enRoleOpt + `(\d{4})-(\d{1,2})-(\d{1,2})\b`), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(atoi(g[2]), atoi(g[3]), atoi(g[4]))
	}},
	{regexp.MustCompile(enRoleOpt + enMonth + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(atoi(g[4]), enMonthNum(g[2]), atoi(g[3]))
	}},
	{regexp.MustCompile(enRoleOpt + `(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + enMonth + `\b\.?(?:,?\s+(\d{4})\b)?`), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(atoi(g[4]), enMonthNum(g[3]), atoi(g[2]))
	}},
	{regexp.MustCompile(enRoleOpt + enMonth + `\.?,?\s+(\d{4})\b`), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(atoi(g[3]), enMonthNum(g[2]))
	}},
	{regexp.MustCompile(enRoleReq + enMonth + `\b`), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(0, enMonthNum(g[2]))
	}},
	{regexp.MustCompile(enRoleReq + `((?:19|20)\d{2})\b`), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(atoi(g[2]), 1)
	}},
	{regexp.MustCompile(enRoleOpt + `(the day before yesterday|the day after tomorrow|yesterday|today|tonight|tomorrow)\b`), func(g []string) func(time.Time, bool) time.Time {
		n := map[string]int{"the day before yesterday": -2, "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "the day after tomorrow": 2}[g[2]]
		return relative(func(ref time.Time) time.Time { return shift(ref, n, "day") })
	}},
	{regexp.MustCompile(enRoleOpt + `end\s+of\s+(?:the\s+)?(?:(this|next|last|coming)\s+)?(week|month|year)\b`), func(g []string) func(time.Time, bool) time.Time {
		n, unit := enOffset(g[2]), g[3]
		return relative(func(ref time.Time) time.Time { return periodEnd(ref, n, unit) })
	}},
	{regexp.MustCompile(enRoleOpt + `(last|next|this|coming|past)\s+(week|month|year|weekend)\b`), func(g []string) func(time.Time, bool) time.Time {
		n, unit := enOffset(g[2]), g[3]
		if unit == "weekend" {
			mod := map[int]string{-1: "last", 0: "this", 1: "next"}[n]
			return relative(func(ref time.Time) time.Time { return weekdayNear(ref, time.Saturday, mod, true) })
		}
		if g[2] == "past" {
			return relative(func(ref time.Time) time.Time { return shift(ref, -1, unit) })
		}
		return relative(func(ref time.Time) time.Time { return periodStart(ref, n, unit) })
	}},
	{regexp.MustCompile(enRoleOpt + enCount + `\s+(day|week|month|year)s?\s+ago\b`), func(g []string) func(time.Time, bool) time.Time {
		n, unit := enCountNum(g[2]), g[3]
		return relative(func(ref time.Time) time.Time { return shift(ref, -n, unit) })
	}},
	{regexp.MustCompile(`(?i)\b(?P<role>)in\s+` + enCount + `\s+(day|week|month|year)s?\b`), func(g []string) func(time.Time, bool) time.Time {
		n, unit := enCountNum(g[2]), g[3]
		return relative(func(ref time.Time) time.Time { return shift(ref, n, unit) })
	}},
	{regexp.MustCompile(enRoleOpt + `(?:(this|next|last|coming)\s+)?` + enWeekday + `\b`), func(g []string) func(time.Time, bool) time.Time {
		wd := enWeekdayOf(g[3])
		mod := g[2]
		if mod == "coming" {
			mod = ""
		}
		return func(ref time.Time, fwd bool) time.Time { return weekdayNear(ref, wd, mod, fwd) }
	}},
}

// scanDatesEN finds the English date phrases of text.
func scanDatesEN(text string) []dateHit { return scanDates(text, enDateRules, enRole) }

// enRole maps a preposition to the role of the date it introduces.
func enRole(w string) role {
	switch w {
	case "since", "from", "starting", "starting from", "as of", "after":
		return roleStart
	case "until", "till", "til", "through", "thru", "to":
		return roleEnd
	case "by", "before":
		return roleBy
	}
	return rolePoint
}

func enMonthNum(s string) int {
	if len(s) < 3 {
		return 0
	}
	i := strings.Index("janfebmaraprmayjunjulaugsepoctnovdec", strings.ToLower(s[:3]))
	if i < 0 || i%3 != 0 {
		return 0
	}
	return i/3 + 1
}

func enWeekdayOf(s string) time.Weekday {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), s) {
			return d
		}
	}
	return time.Monday
}

func enOffset(mod string) int {
	switch mod {
	case "last", "past":
		return -1
	case "next", "coming":
		return 1
	}
	return 0
}

func enCountNum(s string) int {
	words := map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a few": 3, "few": 3,
		"several": 3, "a couple of": 2, "couple of": 2}
	if n, ok := words[s]; ok {
		return n
	}
	return atoi(s)
}
