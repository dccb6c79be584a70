package suggestions

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"concurrenccy", "concurrency", 1}, {"kitten", "sitting", 3}, {"modle", "model", 1}, {"ab", "ba", 1},
		{"지훈", "지훈은", 1}, {"카카오", "네이버", 3},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNear(t *testing.T) {
	keys := []string{"provider", "base_url", "model", "concurrency", "rpm", "tpm", "timeout_seconds"}
	for want, meant := range map[string]string{
		"concurrenccy": "concurrency", "Concurency": "concurrency", "modle": "model", "rpn": "rpm",
		"timeout": "", "zzz": "", "base-url": "base_url",
	} {
		if got := Near(want, keys); got != meant {
			t.Errorf("Near(%q) = %q, want %q", want, got, meant)
		}
	}
}

func TestNearestKeepsTheBestInOrder(t *testing.T) {
	r := NewNearest("Acme", 3)
	for _, n := range []string{"Basic", "Pro", "Acme Corp", "Acne", "acme corp", "Acme Corp", "Zeta", "ACME Holdings"} {
		r.Add(n)
	}
	want := []string{"Acme Corp", "acme corp", "ACME Holdings"}
	if got := r.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	r = NewNearest("Acme", 2)
	for _, n := range []string{"Zeta", "Acne", "Pro"} {
		r.Add(n)
	}
	if got := r.Names(); !slices.Equal(got, []string{"Acne", "Pro"}) {
		t.Errorf("Names() = %q, want the two nearest", got)
	}
}
