package loaders

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// MaxGroupIDBytes is the longest group id kept as written: a longer one is mapped (MapGroupID).
// Every sink indexes group_id and uses it to find a group's elements, and the databases bound
// what an index finds: FalkorDB's range index finds no string longer than 4,096 bytes (a
// 5,000-byte group was written and then not found by its own count check), Neo4j's range
// indexes refuse values past about 8 KB; 255 keeps every id well inside all of them and short
// enough to be a FalkorDB graph name.
const MaxGroupIDBytes = 255

// ValidGroupID reports whether s is a non-empty group id of at most MaxGroupIDBytes made only of
// [A-Za-z0-9_-], the set Graphiti accepts.
func ValidGroupID(s string) bool {
	if s == "" || len(s) > MaxGroupIDBytes {
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

// Mapped group ids: a readable part of at most mappedTextBytes, '-', then mappedHashBytes of
// the SHA-256 of the original id in hex.
const (
	mappedTextBytes = 48
	mappedHashBytes = 16 // 128 bits
)

// MapGroupID maps any string to a valid group id deterministically. A valid id is returned as
// is. Any other id (one with other characters, or longer than MaxGroupIDBytes) becomes a readable part (its first 48 bytes, every rune outside
// [A-Za-z0-9_-] and every invalid UTF-8 byte replaced by '_'), '-', and the first 128 bits of
// the SHA-256 of the whole original in hex.
//
// Why a hash and not a reversible escape: every string of [A-Za-z0-9_-] is already a valid id
// that maps to itself, so no mapping into that set, escape or hash, can be kept apart from every
// id an input might write as is; an escape only makes ids longer without the input size. The
// 128-bit hash keeps mapped ids short and makes two originals sharing one id practically
// impossible (about 1.5e-21 for a billion groups, where the former 32-bit hash gave even odds
// at 77,000). What is left, an input that writes another original's mapped id verbatim, is
// caught by the checkpoint store, which records each id's original (the ingest quarantines the
// rows of a second original instead of merging the two groups).
func MapGroupID(s string) string {
	if ValidGroupID(s) {
		return s
	}
	var b strings.Builder
	b.Grow(mappedTextBytes + 1 + 2*mappedHashBytes)
	for i := 0; i < len(s) && b.Len() < mappedTextBytes; {
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
	b.WriteString(hex.EncodeToString(sum[:mappedHashBytes]))
	return b.String()
}
