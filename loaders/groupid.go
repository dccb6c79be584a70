package loaders

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// ValidGroupID reports whether s is a non-empty group id made only of [A-Za-z0-9_-], the set
// Graphiti accepts.
func ValidGroupID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !groupByte(s[i]) {
			return false
		}
	}
	return true
}

func groupByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// MapGroupID maps any string to a valid group id deterministically. A valid id is returned as is;
// otherwise every rune outside [A-Za-z0-9_-] (and every invalid UTF-8 byte) becomes '_', and "-"
// plus the first 8 hex digits of the SHA-256 of the original is appended, so distinct originals
// that differ only in replaced runes stay distinct.
func MapGroupID(s string) string {
	if ValidGroupID(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 9)
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 && groupByte(s[i]) {
			b.WriteByte(s[i])
		} else {
			b.WriteByte('_')
		}
		i += size
	}
	sum := sha256.Sum256([]byte(s))
	b.WriteByte('-')
	b.WriteString(hex.EncodeToString(sum[:4]))
	return b.String()
}
