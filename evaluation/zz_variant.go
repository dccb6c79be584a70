package evaluation

import (
	"os"

	"github.com/tkgraph/backfill/snapshots"
)

// SCRATCH: variants of the fused mode, measured before one is kept.
func fuseVariant(g *snapshots.Group, k int, facts, bm25, dense, hybrid []int) []item {
	switch os.Getenv("BACKFILL_FUSE") {
	case "vote":
		pos := map[string]int{}
		for i, e := range g.Episodes {
			pos[e.UUID] = i
		}
		var votes []int
		seen := map[int]bool{}
		for _, f := range facts {
			for _, e := range g.Facts[f].Episodes {
				if i, ok := pos[e]; ok && !seen[i] {
					seen[i] = true
					votes = append(votes, i)
				}
			}
		}
		return episodeItems(firstN(rrf(bm25, dense, votes), k))
	case "hyb-then-facts":
		return fuse(g, k, episodeItems(hybrid), factItems(facts))
	}
	return fuse(g, k, factItems(facts), episodeItems(hybrid))
}
