package hangul

import (
	"reflect"
	"testing"
)

func TestRomanTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"서연", []string{"seoyeon"}},
		{"박서연", []string{"park", "seoyeon"}},
		{"김 지훈", []string{"kim", "jihun"}},
		{"이지은", []string{"lee", "jieun"}},
		{"seo-yeon park", []string{"seoyeon", "park"}},
		{"lg전자", []string{"lgjeonja"}},
		{"한빛상사", []string{"han", "bitsangsa"}}, // a company reads like a name: only a candidate, the LLM decides
		{"", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !OnlyFamilyNames([]string{"park", "kim"}) || OnlyFamilyNames([]string{"park", "seoyeon"}) || OnlyFamilyNames(nil) {
		t.Error("OnlyFamilyNames")
	}
}
