package graph

import (
	"slices"
	"sort"
	"time"
)

// AsOf answers "which facts were true at validAt, as the system knew it at knownAt": a fact is
// known once its first version is recorded (record time ≤ knownAt); its interval is the one of
// its last version recorded by knownAt; it is true at validAt when that interval contains
// validAt (an unknown valid_at counts as "since ever"). versions must hold every version of the
// given facts. The returned facts carry the as-known interval, ordered by valid_at then uuid.
func AsOf(facts []Fact, versions []FactVersion, validAt, knownAt time.Time) []Fact {
	return slices.DeleteFunc(Known(facts, versions, knownAt), func(f Fact) bool {
		return f.ValidAt != nil && f.ValidAt.After(validAt) || f.InvalidAt != nil && !f.InvalidAt.After(validAt)
	})
}

// Known returns every fact known at knownAt with its interval as known then (the history
// behind AsOf, whatever its validity), ordered by valid_at then uuid.
func Known(facts []Fact, versions []FactVersion, knownAt time.Time) []Fact {
	last := map[string]FactVersion{}
	for _, v := range versions {
		if v.RecordTime.After(knownAt) {
			continue
		}
		if cur, ok := last[v.FactUUID]; !ok || v.Seq > cur.Seq {
			last[v.FactUUID] = v
		}
	}
	var out []Fact
	for _, f := range facts {
		v, ok := last[f.UUID]
		if !ok {
			continue
		}
		f.ValidAt, f.InvalidAt, f.ExpiredAt = v.ValidAt, v.InvalidAt, v.ExpiredAt
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].ValidAt, out[j].ValidAt
		switch {
		case a == nil && b != nil:
			return true
		case a != nil && b == nil:
			return false
		case a != nil && !a.Equal(*b):
			return a.Before(*b)
		}
		return out[i].UUID < out[j].UUID
	})
	return out
}
