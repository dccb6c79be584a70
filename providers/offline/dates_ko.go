package offline

import (
	"regexp"
	"strings"
	"time"
)

// koRole is the particle after a Korean date phrase.
const koRole = `\s?(?P<role>에서부터|이후로|이후|부터|까지|에는|에|엔|날)?`

// koDateRules are the Korean date patterns.
var koDateRules = []dateRule{
	{regexp.MustCompile(`(\d{4})-(\d{1,2})-(\d{1,2})` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(atoi(g[1]), atoi(g[2]), atoi(g[3]))
	}},
	{regexp.MustCompile(`(\d{4})년\s*(\d{1,2})월\s*(\d{1,2})일` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(atoi(g[1]), atoi(g[2]), atoi(g[3]))
	}},
	{regexp.MustCompile(`(\d{1,2})월\s*(\d{1,2})일` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return fullDate(0, atoi(g[1]), atoi(g[2]))
	}},
	{regexp.MustCompile(`(\d{4})년\s*(\d{1,2})월` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(atoi(g[1]), atoi(g[2]))
	}},
	{regexp.MustCompile(`(\d{4})년` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(atoi(g[1]), 1)
	}},
	{regexp.MustCompile(`(\d{1,2})월` + koRole), func(g []string) func(time.Time, bool) time.Time {
		return monthYear(0, atoi(g[1]))
	}},
	{regexp.MustCompile(`(그저께|그제|어제|오늘|내일|모레)` + koRole), func(g []string) func(time.Time, bool) time.Time {
		n := map[string]int{"그저께": -2, "그제": -2, "어제": -1, "오늘": 0, "내일": 1, "모레": 2}[g[1]]
		return relative(func(ref time.Time) time.Time { return shift(ref, n, "day") })
	}},
	{regexp.MustCompile(`(다음\s?달|이번\s?달|이달|지난\s?달|저번\s?달)\s?말(?:일|경)?` + koRole), func(g []string) func(time.Time, bool) time.Time {
		n := koOffset(g[1])
		return relative(func(ref time.Time) time.Time { return periodEnd(ref, n, "month") })
	}},
	{regexp.MustCompile(`(연말|올해\s?말|월말)` + koRole), func(g []string) func(time.Time, bool) time.Time {
		unit := "year"
		if g[1] == "월말" {
			unit = "month"
		}
		return relative(func(ref time.Time) time.Time { return periodEnd(ref, 0, unit) })
	}},
	{regexp.MustCompile(`(지난|저번|이번|다음)\s?(주|달)` + koRole), func(g []string) func(time.Time, bool) time.Time {
		n, unit := koOffset(g[1]), map[string]string{"주": "week", "달": "month"}[g[2]]
		return relative(func(ref time.Time) time.Time { return periodStart(ref, n, unit) })
	}},
	{regexp.MustCompile(`(작년|지난해|올해|금년|내년|다음\s?해)` + koRole), func(g []string) func(time.Time, bool) time.Time {
		n := map[string]int{"작년": -1, "지난해": -1, "올해": 0, "금년": 0, "내년": 1}[g[1]]
		if strings.HasPrefix(g[1], "다음") {
			n = 1
		}
		return relative(func(ref time.Time) time.Time { return periodStart(ref, n, "year") })
	}},
	{regexp.MustCompile(`(\d{1,3}|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s?(일|주일|주|달|개월|년)\s?(전|후|뒤)` + koRole), func(g []string) func(time.Time, bool) time.Time {
		n := koCount(g[1])
		if g[3] == "전" {
			n = -n
		}
		unit := map[string]string{"일": "day", "주": "week", "주일": "week", "달": "month", "개월": "month", "년": "year"}[g[2]]
		return relative(func(ref time.Time) time.Time { return shift(ref, n, unit) })
	}},
	{regexp.MustCompile(`(?:(이번|다음|지난|저번)\s?주\s?)?([월화수목금토일])요일` + koRole), func(g []string) func(time.Time, bool) time.Time {
		wd := time.Weekday(strings.Index("일월화수목금토", g[2]) / len("일"))
		mod := map[string]string{"이번": "this", "다음": "next", "지난": "last", "저번": "last"}[g[1]]
		return func(ref time.Time, fwd bool) time.Time { return weekdayNear(ref, wd, mod, fwd) }
	}},
}

// scanDatesKO finds the Korean date phrases of text.
func scanDatesKO(text string) []dateHit { return scanDates(text, koDateRules, koRoleOf) }

func koRoleOf(w string) role {
	switch w {
	case "부터", "에서부터", "이후", "이후로":
		return roleStart
	case "까지":
		return roleEnd
	}
	return rolePoint
}

func koOffset(w string) int {
	switch {
	case strings.HasPrefix(w, "지난"), strings.HasPrefix(w, "저번"):
		return -1
	case strings.HasPrefix(w, "다음"):
		return 1
	}
	return 0
}

func koCount(s string) int {
	if n := atoi(s); n > 0 {
		return n
	}
	return map[string]int{"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}[s]
}
