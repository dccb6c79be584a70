package community

import (
	"math/rand/v2"
	"reflect"
	"slices"
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

// TestPropagateOscillating runs graphs on which synchronous propagation (every node updated from
// the previous sweep's labels) cycles forever, and requires the asynchronous run to stop at a
// fixed point within a few sweeps.
func TestPropagateOscillating(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
	}{
		{"two nodes joined by several facts", 2, []Edge{{0, 1, 1}, {1, 0, 1}, {0, 1, 1}}},
		{"complete bipartite K3,3", 6, []Edge{{0, 3, 1}, {0, 4, 1}, {0, 5, 1}, {1, 3, 1}, {1, 4, 1},
			{1, 5, 1}, {2, 3, 1}, {2, 4, 1}, {2, 5, 1}}},
		{"complete bipartite K2,4 with weights", 6, []Edge{{0, 2, 2}, {0, 3, 1}, {0, 4, 1}, {0, 5, 1},
			{1, 2, 1}, {1, 3, 2}, {1, 4, 1}, {1, 5, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := buildCSR(tt.n, tt.edges)
			if !synchronousCycles(g, 20) {
				t.Fatal("synchronous propagation settles on this graph; the test needs one where it cycles")
			}
			labels, sweeps := propagate(tt.n, tt.edges, Options{})
			if sweeps > 4 {
				t.Errorf("took %d sweeps", sweeps)
			}
			if len(Groups(labels)) != 1 {
				t.Errorf("labels %v, want one community", labels)
			}
		})
	}
}

// synchronousCycles runs synchronous propagation with the same vote and tie rule from singleton
// labels and reports whether it revisits an earlier labelling, other than the last one, within
// the given number of steps.
func synchronousCycles(g csr, steps int) bool {
	history := [][]int32{identity(len(g.off) - 1)}
	for range steps {
		prev := history[len(history)-1]
		next := synchronousStep(g, prev)
		if reflect.DeepEqual(prev, next) {
			return false
		}
		for _, h := range history {
			if reflect.DeepEqual(h, next) {
				return true
			}
		}
		history = append(history, next)
	}
	return false
}

// synchronousStep updates every node from the labels prev of the previous step.
func synchronousStep(g csr, prev []int32) []int32 {
	next := make([]int32, len(prev))
	for u := range prev {
		s := newSweeper(g, g.w, slices.Clone(prev))
		s.visit(int32(u))
		next[u] = s.labels[u]
	}
	return next
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
