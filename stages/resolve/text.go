package resolve

import (
	"strings"
	"time"

	"github.com/tkgraph/backfill/internal/namekey"
)

// NormalizeFact is the form of a fact sentence used for exact de-duplication: normalized like a
// name, with trailing sentence punctuation removed.
func NormalizeFact(s string) string {
	return strings.TrimRight(namekey.Normalize(s), ".!?。")
}

var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02"}

// ParseDate reads a date the LLM gave (RFC 3339, or a date or datetime without zone read as
// UTC); anything else is unknown (nil).
func ParseDate(s *string) *time.Time {
	if s == nil {
		return nil
	}
	v := strings.TrimSpace(*s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			t = t.UTC()
			return &t
		}
	}
	return nil
}
