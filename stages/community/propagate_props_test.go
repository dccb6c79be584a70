package community

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPropagateDeterministic checks that repeated runs, shuffling the edges and swapping their
// endpoints all give the same labels.
func TestPropagateDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	edges, n := plantedPartition(rng, 3000, 20, 12000)
	for i := range edges {
		edges[i].W = float32(1 + rng.IntN(3))
	}
	want := Propagate(n, edges, Options{})
	if again := Propagate(n, edges, Options{}); !reflect.DeepEqual(again, want) {
		t.Fatal("a second run on the same input gave other labels")
	}
	for trial := range 3 {
		shuffled := append([]Edge(nil), edges...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := range shuffled {
			if rng.IntN(2) == 0 {
				shuffled[i].A, shuffled[i].B = shuffled[i].B, shuffled[i].A
			}
		}
		if got := Propagate(n, shuffled, Options{}); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: labels differ after shuffling the edges", trial)
		}
	}
}

// TestPropagateIterationCap checks that MaxIterations stops a run that needs more sweeps.
func TestPropagateIterationCap(t *testing.T) {
	edges, n := plantedPartition(rand.New(rand.NewPCG(4, 4)), 400, 10, 1200)
	full, sweeps := propagate(n, edges, Options{})
	if sweeps < 4 {
		t.Fatalf("the uncapped run took %d sweeps; the test needs a graph that takes more", sweeps)
	}
	for _, limit := range []int{1, 2} {
		capped, sweeps := propagate(n, edges, Options{MaxIterations: limit})
		if sweeps != limit {
			t.Errorf("run capped at %d took %d sweeps", limit, sweeps)
		}
		if reflect.DeepEqual(capped, full) {
			t.Errorf("the run capped at %d gave the converged labels; the cap had no effect", limit)
		}
		for u, l := range capped {
			if l > int32(u) || capped[l] != l {
				t.Fatalf("capped labels are not canonical at node %d: label %d", u, l)
			}
		}
	}
}

// TestPropagateConvergesToFixedPoint checks on random weighted graphs that the run stops before
// the cap, that every node's label then carries the largest neighbour weight (a fixed point of
// plain propagation on the given weights) and that every community is connected.
func TestPropagateConvergesToFixedPoint(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 99))
		n := 50 + rng.IntN(200)
		edges := make([]Edge, 3*n)
		for i := range edges {
			edges[i] = Edge{int32(rng.IntN(n)), int32(rng.IntN(n)), float32(1 + rng.IntN(4))}
		}
		labels, sweeps := propagate(n, edges, Options{})
		if sweeps >= DefaultMaxIterations {
			t.Fatalf("seed %d: hit the iteration cap", seed)
		}
		g := buildCSR(n, edges)
		for u := range n {
			sum := map[int32]float64{}
			best := 0.0
			for i := g.off[u]; i < g.off[u+1]; i++ {
				l := labels[g.nbr[i]]
				sum[l] += float64(g.w[i])
				best = max(best, sum[l])
			}
			if len(sum) > 0 && sum[labels[u]] != best {
				t.Fatalf("seed %d: node %d keeps label %d with weight %v, best is %v",
					seed, u, labels[u], sum[labels[u]], best)
			}
		}
		split := append([]int32(nil), labels...)
		splitDisconnected(g, split)
		if !reflect.DeepEqual(split, labels) {
			t.Fatalf("seed %d: a community is not connected", seed)
		}
	}
}

// TestPropagatePlantedPartition checks that most planted blocks are found, each mostly whole and
// mostly alone in its community.
func TestPropagatePlantedPartition(t *testing.T) {
	const n, block = 5000, 50
	edges, _ := plantedPartition(rand.New(rand.NewPCG(1, 2)), n, block, 25000)
	labels := Propagate(n, edges, Options{})
	blockOf := plantedBlocks(rand.New(rand.NewPCG(1, 2)), n, block)
	// Share of nodes that carry the most common label of their block.
	cohesive := 0
	for b := range n / block {
		count := map[int32]int{}
		for u := range n {
			if blockOf[u] == b {
				count[labels[u]]++
			}
		}
		m := 0
		for _, c := range count {
			m = max(m, c)
		}
		cohesive += m
	}
	if share := float64(cohesive) / n; share < 0.9 {
		t.Errorf("only %.3f of nodes share the majority label of their block, want ≥ 0.9", share)
	}
	// Share of nodes whose block is the most common block of their community: one giant
	// community would have full cohesion but no purity.
	pure := 0
	for _, members := range Groups(labels) {
		count := map[int]int{}
		m := 0
		for _, u := range members {
			count[blockOf[u]]++
			m = max(m, count[blockOf[u]])
		}
		pure += m
	}
	if share := float64(pure) / n; share < 0.95 {
		t.Errorf("only %.3f of nodes belong to the majority block of their community, want ≥ 0.95", share)
	}
}

// TestPropagateActiveSetChangesNothing compares Propagate with a reference that visits every
// node in every sweep: skipping nodes whose neighbours did not change must give the same labels
// after the same number of sweeps.
func TestPropagateActiveSetChangesNothing(t *testing.T) {
	for seed := range uint64(8) {
		edges, n := plantedPartition(rand.New(rand.NewPCG(seed, 21)), 800, 16, 3000)
		got, sweeps := propagate(n, edges, Options{})
		g := buildCSR(n, edges)
		want, refSweeps := identity(n), 0
		for _, w := range [][]float32{embeddedWeights(g), g.w} {
			s := newSweeper(g, w, want)
			for {
				refSweeps++
				for u := range s.active {
					s.active[u] = true
				}
				if !s.sweep() {
					break
				}
			}
		}
		splitDisconnected(g, want)
		canonicalize(want, 1)
		if !reflect.DeepEqual(got, want) || sweeps != refSweeps {
			t.Fatalf("seed %d: %d sweeps and labels differ from the full-sweep reference (%d sweeps)", seed, sweeps, refSweeps)
		}
	}
}
