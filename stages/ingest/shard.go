package ingest

import "hash/fnv"

// Shard selects the groups of one shard: a stable hash of group_id modulo Count equals Index.
type Shard struct{ Index, Count int }

// Owns reports whether the shard processes a group (every group when Count ≤ 1).
func (s Shard) Owns(group string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(group))
	return int(h.Sum64()%uint64(s.Count)) == s.Index
}
