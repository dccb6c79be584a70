package graph

import (
	"testing"
	"time"
)

func TestWithLeapSecond(t *testing.T) {
	parse := func(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }
	tests := []struct {
		in, want string // want "" = an error
	}{
		{"2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"},
		{"2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.5Z"},
		{"2017-01-01T08:59:60+09:00", "2017-01-01T00:00:00Z"},
		{"2016-12-31T23:59:59Z", "2016-12-31T23:59:59Z"},
		{"2016-12-31T12:00:60Z", ""},
		{"2016-12-31T23:59:61Z", ""},
	}
	for _, tt := range tests {
		got, err := WithLeapSecond(tt.in, parse)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: %v, want an error", tt.in, got)
			}
			continue
		}
		want, _ := time.Parse(time.RFC3339Nano, tt.want)
		if err != nil || !got.Equal(want) {
			t.Errorf("%s: %v, %v; want %v", tt.in, got, err, want)
		}
	}
}
