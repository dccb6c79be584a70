package offline

import (
	"testing"
	"time"
)

func TestScanDates(t *testing.T) {
	// 2024-03-11 is a Monday.
	ref := time.Date(2024, 3, 11, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		text    string
		forward bool
		want    string // YYYY-MM-DD of the first hit
		role    role
	}{
		{"since 2023", false, "2023-01-01", roleStart},
		{"since March 2023", false, "2023-03-01", roleStart},
		{"on March 2", false, "2024-03-02", rolePoint},
		{"on 2 March", false, "2024-03-02", rolePoint},
		{"on Mar 2, 2022", false, "2022-03-02", rolePoint},
		{"on 2024-03-02", false, "2024-03-02", rolePoint},
		{"on April 2", false, "2023-04-02", rolePoint}, // past reading: last April
		{"until Dec 25", true, "2024-12-25", roleEnd},
		{"until Feb 3", true, "2025-02-03", roleEnd}, // future reading: next February
		{"yesterday", false, "2024-03-10", rolePoint},
		{"the day before yesterday", false, "2024-03-09", rolePoint},
		{"tomorrow", true, "2024-03-12", rolePoint},
		{"last week", false, "2024-03-04", rolePoint},
		{"next week", true, "2024-03-18", rolePoint},
		{"last month", false, "2024-02-01", rolePoint},
		{"next month", true, "2024-04-01", rolePoint},
		{"at the end of next month", true, "2024-04-30", rolePoint},
		{"by the end of the year", true, "2024-12-31", roleBy},
		{"by Friday", true, "2024-03-15", roleBy},
		{"next Friday", true, "2024-03-22", rolePoint},
		{"last Friday", false, "2024-03-08", rolePoint},
		{"on Friday", false, "2024-03-08", rolePoint},
		{"two weeks ago", false, "2024-02-26", rolePoint},
		{"3 days ago", false, "2024-03-08", rolePoint},
		{"in 2 weeks", true, "2024-03-25", rolePoint},
		{"in June", true, "2024-06-01", rolePoint},
		{"in 2021", false, "2021-01-01", rolePoint},
		{"3월 2일에", false, "2024-03-02", rolePoint},
		{"2023년 3월 2일부터", false, "2023-03-02", roleStart},
		{"12월 25일까지", true, "2024-12-25", roleEnd},
		{"2023년부터", false, "2023-01-01", roleStart},
		{"어제", false, "2024-03-10", rolePoint},
		{"그저께", false, "2024-03-09", rolePoint},
		{"지난주에", false, "2024-03-04", rolePoint},
		{"다음 주", true, "2024-03-18", rolePoint},
		{"지난달에", false, "2024-02-01", rolePoint},
		{"다음 달", true, "2024-04-01", rolePoint},
		{"다음 달 말에", true, "2024-04-30", rolePoint},
		{"작년에", false, "2023-01-01", rolePoint},
		{"금요일까지", true, "2024-03-15", roleEnd},
		{"다음 주 월요일에", true, "2024-03-18", rolePoint},
		{"3일 전에", false, "2024-03-08", rolePoint},
		{"한 달 전", false, "2024-02-11", rolePoint},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			hits := scanDatesEN(tt.text)
			if hasHangul(tt.text) {
				hits = scanDatesKO(tt.text)
			}
			if len(hits) == 0 {
				t.Fatalf("no date found in %q", tt.text)
			}
			got := hits[0].at(ref, tt.forward).Format(time.DateOnly)
			if got != tt.want || hits[0].role != tt.role {
				t.Errorf("%q → %s role %d, want %s role %d", tt.text, got, hits[0].role, tt.want, tt.role)
			}
		})
	}
}

func TestScanDatesIgnoresNonDates(t *testing.T) {
	for _, text := range []string{
		"I may join later", "we march on", "Before Pangyo", "3개월 동안", "카카오에서 일해요", "Jeju with them",
	} {
		if hits := append(scanDatesEN(text), scanDatesKO(text)...); len(hits) > 0 {
			t.Errorf("%q: unexpected date at %d..%d", text, hits[0].start, hits[0].end)
		}
	}
}

func TestScanDatesLongestMatch(t *testing.T) {
	hits := scanDatesEN("I left on March 2, 2023 and came back next month")
	if len(hits) != 2 {
		t.Fatalf("got %d hits, want 2", len(hits))
	}
	ref := time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC)
	if got := hits[0].at(ref, false).Format(time.DateOnly); got != "2023-03-02" {
		t.Errorf("first hit = %s, want 2023-03-02", got)
	}
}
