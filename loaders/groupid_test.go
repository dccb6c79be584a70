package loaders

import "testing"

func TestGroupIDs(t *testing.T) {
	tests := []struct {
		in, want string
		valid    bool
	}{
		{"conv-26", "conv-26", true},
		{"A_z-09", "A_z-09", true},
		{"", "-e3b0c442", false},
		{"user@example.com", "user_example_com-b4c9a289", false},
		{"a b", "a_b-c8687a08", false},
		{"a_b", "a_b", true},
		{"고객", "__-e7be0e0e", false},
		{"bad\xffutf8", "bad_utf8-ca352f78", false},
	}
	for _, tt := range tests {
		if got := ValidGroupID(tt.in); got != tt.valid {
			t.Errorf("ValidGroupID(%q) = %v", tt.in, got)
		}
		got := MapGroupID(tt.in)
		if got != tt.want {
			t.Errorf("MapGroupID(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !ValidGroupID(got) || MapGroupID(got) != got {
			t.Errorf("MapGroupID(%q) = %q is not a valid fixed point", tt.in, got)
		}
	}
	if MapGroupID("a b") == MapGroupID("a+b") {
		t.Error("distinct invalid ids that replace to the same text must stay distinct")
	}
}
