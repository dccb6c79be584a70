package loaders

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestGroupIDs(t *testing.T) {
	tests := []struct {
		in, want string
		valid    bool
	}{
		{"conv-26", "conv-26", true},
		{"A_z-09", "A_z-09", true},
		{"", "-e3b0c44298fc1c149afbf4c8996fb924", false},
		{"user@example.com", "user_example_com-b4c9a289323b21a01c3e940f150eb9b8", false},
		{"a b", "a_b-c8687a08aa5d6ed2044328fa6a697ab8", false},
		{"a_b", "a_b", true},
		{"고객", "__-e7be0e0ef539353540fd0ac21619320b", false},
		{"bad\xffutf8", "bad_utf8-ca352f783573c0248b905bca7abd1036", false},
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
	long := MapGroupID(strings.Repeat("é", 1000))
	if len(long) != mappedTextBytes+1+2*mappedHashBytes {
		t.Errorf("a long id maps to %d bytes, want %d", len(long), mappedTextBytes+1+2*mappedHashBytes)
	}
}

// hangulID is the n-th id of three Hangul syllables: ids that all read "___" once their runes
// are replaced, so only the hash tells them apart.
func hangulID(n int) string {
	return string([]rune{0xAC00 + rune(n%11172), 0xAC00 + rune(n/11172%11172), 0xAC00 + rune(n/11172/11172%11172)})
}

// TestMappedGroupIDsAreDistinct maps 100,000 distinct non-ASCII ids to 100,000 distinct ids.
// The set holds ids 75462 and 81431, which the former mapping (32 bits of the hash) merged.
func TestMappedGroupIDsAreDistinct(t *testing.T) {
	old := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return strings.Repeat("_", len([]rune(s))) + "-" + hex.EncodeToString(sum[:4])
	}
	if a, b := hangulID(75462), hangulID(81431); old(a) != old(b) {
		t.Fatalf("precondition: %q and %q no longer collide under the 32-bit mapping", a, b)
	}
	seen := make(map[string]string, 100_000)
	for n := range 100_000 {
		id := hangulID(n)
		m := MapGroupID(id)
		if prev, ok := seen[m]; ok {
			t.Fatalf("%q and %q both map to %q", prev, id, m)
		}
		seen[m] = id
	}
}
