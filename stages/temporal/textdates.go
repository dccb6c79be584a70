package temporal

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A textDate is a calendar date a fact's sentence states, with the word that says what it is to
// the fact: "until August 31, 2018", "from 2015-06-01", "(2024-05-31)", "2019년 7월 1일까지",
// "on March 29". A month without a day is the period of that month. A month and day without a
// year ("on May 18", "3월 2일에", as small models copy the message) is read against the fact's reference
// time: the last such day at or before it, or for a plan the first at or after it. A relative
// day ("yesterday", "3 days ago", "tomorrow") is the reference time's day moved by its offset;
// relative periods ("next week") are not read.
type textDate struct {
	start, end int       // byte span in the sentence, cue word included
	day        time.Time // the first day of the period, midnight UTC
	next       time.Time // the day after its last day
	month      bool      // a month without a day
	relative   bool      // a relative day ("yesterday")
	nearest    bool      // an end without a year, read as the nearest such day
	cue        string    // the cue word before it ("until", "from", "by"…) or Korean after it ("까지", "부터"), lower case; "" for none
}

// last is the last day of the period, midnight UTC: the day itself, or a month's last day.
func (d textDate) last() time.Time { return d.next.AddDate(0, 0, -1) }

const enMonth = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`

// The cue words before an English date; Korean cues follow the date.
const enCue = `(?:\b(until|till|through|thru|to|from|since|by|before|on|in|ended|ending)\s+(?:the\s+)?)?`

var (
	reISODate = regexp.MustCompile(`(?i)` + enCue + `\b(\d{4})-(\d{2})-(\d{2})\b`)
	reENMDY   = regexp.MustCompile(`(?i)` + enCue + `\b` + enMonth + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	reENDMY   = regexp.MustCompile(`(?i)` + enCue + `\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + enMonth + `\.?,?\s+(\d{4})\b`)
	reENMY    = regexp.MustCompile(`(?i)` + enCue + `\b` + enMonth + `\.?,?\s+(?:of\s+)?(\d{4})\b`)
	reENMD    = regexp.MustCompile(`(?i)` + enCue + `\b` + enMonth + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b`)
	reENDM    = regexp.MustCompile(`(?i)` + enCue + `\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + enMonth + `\b`)
	reKODate  = regexp.MustCompile(`(?:(\d{4})년\s*)?(\d{1,2})월(?:\s*(\d{1,2})일)?\s*(까지|부터|에서|에)?`)
	reRelDay  = regexp.MustCompile(`(?i)` + enCue + `\b(the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight|this morning|tomorrow|(\d{1,2}|a|one|two|three|four|five|six|seven) days? ago)\b`)
)

// relativeDays are the day offsets of the relative days reRelDay reads; "N days ago" is -N.
var relativeDays = map[string]int{"the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1,
	"last night": -1, "today": 0, "tonight": 0, "this morning": 0, "tomorrow": 1}

// wordNumbers are the numbers of "N days ago" written as words.
var wordNumbers = map[string]int{"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}

var enMonths = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "oct": 10, "nov": 11, "dec": 12}

// textDates finds the dates of a sentence, in text order, the longest of overlapping matches
// kept; a date without a year is read against ref: forward for a plan, the nearest for an end
// ("out of stock until Dec 25" said on Dec 10, "worked at Hooli until December 15" said in
// January), else backward.
func textDates(s string, ref time.Time, forward bool) []textDate {
	var all []textDate
	add := func(m []int, cue string, y, mo, d int) {
		nearest := false
		if y == 0 && d > 0 && mo >= 1 && mo <= 12 { // a month and day without a year
			y = ref.Year()
			at := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
			switch {
			case forward && at.Before(ref.Truncate(24*time.Hour)):
				y++
			case !forward && at.After(ref):
				y--
			}
			if !forward && isEndCue(strings.ToLower(cue)) {
				y, nearest = nearestYear(ref, mo, d), true
			}
		}
		if mo < 1 || mo > 12 || y < 1000 {
			return
		}
		month := d == 0
		if month {
			d = 1
		}
		day := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if day.Day() != d {
			return // no such day
		}
		next := day.AddDate(0, 0, 1)
		if month {
			next = day.AddDate(0, 1, 0)
		}
		all = append(all, textDate{start: m[0], end: m[1], day: day, next: next, month: month, nearest: nearest, cue: strings.ToLower(cue)})
	}
	sub := func(m []int, i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	for _, m := range reISODate.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), atoi(sub(m, 2)), atoi(sub(m, 3)), atoi(sub(m, 4)))
	}
	for _, m := range reENMDY.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), atoi(sub(m, 4)), int(enMonths[strings.ToLower(sub(m, 2))[:3]]), atoi(sub(m, 3)))
	}
	for _, m := range reENDMY.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), atoi(sub(m, 4)), int(enMonths[strings.ToLower(sub(m, 3))[:3]]), atoi(sub(m, 2)))
	}
	for _, m := range reENMY.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), atoi(sub(m, 3)), int(enMonths[strings.ToLower(sub(m, 2))[:3]]), 0)
	}
	for _, m := range reENMD.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), 0, int(enMonths[strings.ToLower(sub(m, 2))[:3]]), atoi(sub(m, 3)))
	}
	for _, m := range reENDM.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 1), 0, int(enMonths[strings.ToLower(sub(m, 3))[:3]]), atoi(sub(m, 2)))
	}
	for _, m := range reKODate.FindAllStringSubmatchIndex(s, -1) {
		add(m, sub(m, 4), atoi(sub(m, 1)), atoi(sub(m, 2)), atoi(sub(m, 3)))
	}
	for _, m := range reRelDay.FindAllStringSubmatchIndex(s, -1) {
		word := strings.ToLower(sub(m, 2))
		off, ok := relativeDays[word]
		if n := strings.ToLower(sub(m, 3)); n != "" {
			off, ok = -atoi(n), true
			if w, isWord := wordNumbers[n]; isWord {
				off = -w
			}
		}
		if ok {
			day := ref.UTC().Truncate(24*time.Hour).AddDate(0, 0, off)
			all = append(all, textDate{start: m[0], end: m[1], day: day, next: day.AddDate(0, 0, 1), relative: true,
				cue: strings.ToLower(sub(m, 1))})
		}
	}
	// Longest first, then earliest; drop any match overlapping a kept one; then text order.
	keep := make([]textDate, 0, len(all))
	for len(all) > 0 {
		best := 0
		for i, d := range all {
			if l, lb := d.end-d.start, all[best].end-all[best].start; l > lb || l == lb && d.start < all[best].start {
				best = i
			}
		}
		b := all[best]
		keep = append(keep, b)
		rest := all[:0]
		for _, d := range all {
			if d.end <= b.start || d.start >= b.end {
				rest = append(rest, d)
			}
		}
		all = rest
	}
	for i := 1; i < len(keep); i++ {
		for j := i; j > 0 && keep[j].start < keep[j-1].start; j-- {
			keep[j], keep[j-1] = keep[j-1], keep[j]
		}
	}
	// An end without a year right after a start ("from March 3 to March 7") is the first such
	// day at or after the start, not the nearest to the message.
	for i := 1; i < len(keep); i++ {
		if d, s := keep[i], keep[i-1]; d.nearest && isStartCue(s.cue) {
			day := time.Date(s.day.Year(), d.day.Month(), d.day.Day(), 0, 0, 0, 0, time.UTC)
			if day.Before(s.day) {
				day = day.AddDate(1, 0, 0)
			}
			keep[i].day, keep[i].next = day, day.AddDate(0, 0, 1)
		}
	}
	return keep
}

// nearestYear is the year of the month and day nearest to ref, before or after it.
func nearestYear(ref time.Time, mo, d int) int {
	best, gap := 0, time.Duration(-1)
	for y := ref.Year() - 1; y <= ref.Year()+1; y++ {
		g := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Sub(ref)
		g = max(g, -g)
		if gap < 0 || g < gap {
			best, gap = y, g
		}
	}
	return best
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// isEndCue and isStartCue classify a date's cue word.
func isEndCue(c string) bool {
	switch c {
	case "until", "till", "through", "thru", "to", "ended", "ending", "까지":
		return true
	}
	return false
}

func isStartCue(c string) bool { return c == "from" || c == "since" || c == "부터" }

// isOnCue reports whether c says a date is the day something happened: "on", or Korean "에"
// after the date ("3월 2일에").
func isOnCue(c string) bool { return c == "on" || c == "에" }

// statedStart is the start a sentence states for a state the model gave none: the first date
// with a start cue ("since March 2", "from 2015") or "on" ("moved to Manchester on May 18"),
// not a month alone after "on", or a relative day without an end cue ("moved to Bristol
// yesterday"). ok is false when it states none.
func statedStart(ds []textDate) (time.Time, bool) {
	for _, d := range ds {
		if isStartCue(d.cue) || isOnCue(d.cue) && !d.month || d.relative && !isEndCue(d.cue) {
			return d.day, true
		}
	}
	return time.Time{}, false
}

// statedDay is the day a sentence says an event happened: the first date of one day (not a
// month) with the cue "on", no cue, or a relative day ("visited Paris on March 10", "met Tom
// yesterday"). ok is false when it states none.
func statedDay(ds []textDate) (time.Time, bool) {
	for _, d := range ds {
		if !d.month && (isOnCue(d.cue) || d.cue == "" || d.relative && !isEndCue(d.cue) && !isStartCue(d.cue)) {
			return d.day, true
		}
	}
	return time.Time{}, false
}

// statedRange is a range with full dates on both ends ("from June 1, 2015 to August 31, 2018",
// "2015년 6월 1일부터 2018년 8월 31일까지"): a start date (cue from, since, 부터) followed by an
// end date (cue to, until, through, 까지), both with a day. ok is false when the sentence has none.
func statedRange(ds []textDate) (from, to time.Time, ok bool) {
	for i := 0; i+1 < len(ds); i++ {
		a, b := ds[i], ds[i+1]
		if isStartCue(a.cue) && isEndCue(b.cue) && !a.month && !b.month && b.day.After(a.day) {
			return a.day, b.day, true
		}
	}
	return from, to, false
}

// statedEnd is the end a sentence states for a state: the last date with an end cue ("until
// August 2018": the period's last day), not part of a range. ok is false when it states none.
func statedEnd(ds []textDate) (time.Time, bool) {
	for i := len(ds) - 1; i >= 0; i-- {
		if isEndCue(ds[i].cue) {
			return ds[i].last(), true
		}
	}
	return time.Time{}, false
}

// planEnd is when a plan has passed: the end of the date its sentence names for what is planned
// (its last date; the day after that day, or after the month's last day): "by Friday
// (2024-04-19)" is current through the Friday.
func planEnd(ds []textDate) (time.Time, bool) {
	if len(ds) == 0 {
		return time.Time{}, false
	}
	return ds[len(ds)-1].next, true
}
