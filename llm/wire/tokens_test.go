package wire

import "testing"

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"abcd", 1}, {"abcde", 2}, {"안녕하세요", 5}, {"hi 안녕", 3},
	} {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
