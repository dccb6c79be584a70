package evaluation

import (
	"testing"
	"time"
)

func TestGoldTimes(t *testing.T) {
	for _, tc := range []struct {
		gold    string
		validAt bool
		graph   *time.Time
		want    bool
	}{
		{"-", false, nil, true},
		{"-", false, atp("2024-03-02T00:00:00Z"), false},
		{"2024-03-02", false, atp("2024-03-02T00:00:00Z"), true},
		{"2024-03-02", false, atp("2024-03-01T15:00:00Z"), true}, // midnight in Seoul
		{"2024-03-02", false, atp("2024-03-03T04:59:00Z"), true}, // late evening in New York
		{"2024-03-02", false, atp("2024-03-03T12:00:00Z"), false},
		{"2024-03-02", false, atp("2024-03-01T09:59:00Z"), false},
		{"2024-03-02", false, nil, false},
		{"2024-03", false, atp("2024-03-31T20:00:00Z"), true},
		{"2024", false, atp("2024-07-01T00:00:00Z"), true},
		{"2024", false, atp("2025-02-01T00:00:00Z"), false},
		{"2024-03-02T09:00:00+09:00", false, atp("2024-03-02T00:00:00Z"), true},
		{"2024-03-02T09:00:00+09:00", false, atp("2024-03-02T00:01:00Z"), false},
		{"2024-02-05..2024-02-11", false, atp("2024-02-11T18:00:00Z"), true},
		{"2024-02-05..2024-02-11", false, atp("2024-02-13T00:00:00Z"), false},
		{"<=2024-01-08", true, atp("2021-01-01T00:00:00Z"), true},
		{"<=2024-01-08", true, nil, true},   // started at or before, or unknown
		{"<=2024-01-08", false, nil, false}, // ended at or before: open is wrong
		{"<=2024-01-08", false, atp("2024-01-10T00:00:00Z"), false},
		{"2024-05..", false, atp("2030-01-01T00:00:00Z"), true},
	} {
		gt, err := parseGoldTime(tc.gold, tc.validAt)
		if err != nil {
			t.Fatalf("%q: %v", tc.gold, err)
		}
		if got := gt.matches(tc.graph); got != tc.want {
			t.Errorf("%q (valid_at %v) against %v: %v, want %v", tc.gold, tc.validAt, tc.graph, got, tc.want)
		}
	}
	for _, bad := range []string{"..", "2024-13", "March 2", "2024-03-02..soon"} {
		if _, err := parseGoldTime(bad, true); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
