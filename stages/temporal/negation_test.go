package temporal

import "testing"

// TestNewCue: a cue counts only when the new text has it and the old sentence does not;
// comparisons count only when asked for (a fact between other entities).
func TestNewCue(t *testing.T) {
	tests := []struct {
		text, old   string
		comparisons bool
		want        bool
	}{
		{"Emma left Acme", "Emma works at Acme", false, true},
		{"Emma no longer likes green tea", "Emma likes green tea", false, true},
		{"Emma doesn’t live in Leeds", "Emma lives in Leeds", false, true},
		{"Emma is not a student", "Emma is not a teacher", false, false},
		{"Emma works at Globex", "Emma works at Acme", false, false},
		{"Aurora Lamp is back in stock at Downtown", "Aurora Lamp is out of stock at Downtown", false, true},
		{"Aurora Lamp is out of stock at Downtown", "Aurora Lamp is out of stock at Uptown", false, false},
		{"Emma prefers coffee over green tea", "Emma's favorite drink is green tea", false, false},
		{"Emma prefers coffee over green tea", "Emma's favorite drink is green tea", true, true},
		{"Emma visited Paris over the weekend", "Emma likes Paris", false, false},
		{"민서는 아메리카노보다 라떼를 더 좋아한다", "민서는 아메리카노를 좋아한다", true, true},
		{"민서는 아메리카노보다 라떼를 더 좋아한다", "민서는 아메리카노를 좋아한다", false, false},
		{"준호는 카카오를 퇴사했다", "준호는 카카오에서 일한다", false, true},
		{"준호는 더 이상 커피를 마시지 않는다", "준호는 커피를 마신다", false, true},
		{"준호는 안산에 산다", "준호는 서울에 산다", false, false},
		{"준호는 안 간다", "준호는 간다", false, true},
		{"The meeting was postponed to Monday", "The meeting is on Friday", false, true},
	}
	for _, tt := range tests {
		if got := newCue(normText(tt.text), normText(tt.old), tt.comparisons); got != tt.want {
			t.Errorf("newCue(%q, %q, %v) = %v, want %v", tt.text, tt.old, tt.comparisons, got, tt.want)
		}
	}
}
