package offline

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// role is what a date phrase says about a statement.
type role int

const (
	rolePoint role = iota // "on March 2", "3월 2일에", "yesterday": when something happened
	roleStart             // "since 2023", "2023년부터": when a state began
	roleEnd               // "until Dec 25", "12월 25일까지": when a state ends
	roleBy                // "by Friday", "before June": a deadline
)

// dateHit is one date phrase found in a text.
type dateHit struct {
	start, end int // byte span in the scanned text
	role       role
	// at resolves the phrase against the reference time; forward picks the future reading of
	// phrases without a year ("March 2", "Friday").
	at func(ref time.Time, forward bool) time.Time
}

// dateRule is a date pattern: the regexp and how its submatches become a date. The first group
// named "role" of every pattern is the role word ("since", "까지"), possibly empty.
type dateRule struct {
	re    *regexp.Regexp
	build func(g []string) func(ref time.Time, forward bool) time.Time
}

// scanDates finds the date phrases of text with the given rules, keeping the longest of
// overlapping matches, in text order.
func scanDates(text string, rules []dateRule, roleOf func(string) role) []dateHit {
	type found struct {
		dateHit
		n int
	}
	var all []found
	for _, r := range rules {
		ri := r.re.SubexpIndex("role")
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			g := make([]string, len(m)/2)
			for i := range g {
				if m[2*i] >= 0 {
					g[i] = strings.ToLower(text[m[2*i]:m[2*i+1]])
				}
			}
			at := r.build(g)
			if at == nil {
				continue
			}
			all = append(all, found{dateHit{start: m[0], end: m[1], role: roleOf(g[ri]), at: at}, m[1] - m[0]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].start != all[j].start {
			return all[i].start < all[j].start
		}
		return all[i].n > all[j].n
	})
	var out []dateHit
	end := -1
	for _, f := range all {
		if f.start >= end {
			out = append(out, f.dateHit)
			end = f.end
		}
	}
	return out
}

// fixed returns a resolver for a full date.
func fixed(t time.Time) func(time.Time, bool) time.Time {
	return func(time.Time, bool) time.Time { return t }
}

// atoi parses a small decimal number; 0 when it is not one.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// validDay reports whether y-m-d is a real calendar day (y 0 means any leap year).
func validDay(y, m, d int) bool {
	if y == 0 {
		y = 2024
	}
	if m < 1 || m > 12 || d < 1 || y < 1900 || y > 2200 {
		return false
	}
	return day(y, time.Month(m), d).Day() == d
}

// fullDate resolves a year, month and day; a zero year is taken from context.
func fullDate(y, m, d int) func(time.Time, bool) time.Time {
	if !validDay(y, m, d) {
		return nil
	}
	if y > 0 {
		return fixed(day(y, time.Month(m), d))
	}
	return func(ref time.Time, fwd bool) time.Time { return monthDay(ref, time.Month(m), d, fwd) }
}

// monthYear resolves a month with an optional year to its first day.
func monthYear(y, m int) func(time.Time, bool) time.Time {
	if m < 1 || m > 12 {
		return nil
	}
	if y > 0 {
		if y < 1900 || y > 2200 {
			return nil
		}
		return fixed(day(y, time.Month(m), 1))
	}
	return func(ref time.Time, fwd bool) time.Time { return monthOnly(ref, time.Month(m), fwd) }
}

// relative resolves a phrase whose date depends only on the reference time.
func relative(f func(ref time.Time) time.Time) func(time.Time, bool) time.Time {
	return func(ref time.Time, _ bool) time.Time { return f(ref) }
}

// resolveFirst resolves the first hit with one of the roles (tried in the given order), or
// returns nil.
func resolveFirst(hits []dateHit, ref time.Time, forward bool, roles ...role) *time.Time {
	for _, r := range roles {
		for _, h := range hits {
			if h.role == r {
				t := h.at(ref, forward)
				return &t
			}
		}
	}
	return nil
}
