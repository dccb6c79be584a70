package community

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestEmbeddedWeights(t *testing.T) {
	// A triangle 0-1-2 (the 0-1 pair with two facts), a pendant edge 2-3, a lone edge 4-5.
	g := buildCSR(6, []Edge{{0, 1, 1}, {1, 0, 1}, {1, 2, 1}, {2, 0, 1}, {2, 3, 1}, {4, 5, 3}})
	got := embeddedWeights(g)
	// Rows: 0:[1 2] 1:[0 2] 2:[0 1 3] 3:[2] 4:[5] 5:[4].
	if want := []float32{4, 2, 4, 2, 2, 2, 1, 1, 3, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("embedded weights = %v, want %v", got, want)
	}
	if want := []float32{2, 1, 2, 1, 1, 1, 1, 1, 3, 3}; !reflect.DeepEqual(g.w, want) {
		t.Errorf("the graph's own weights changed to %v", g.w)
	}
}

// TestEmbeddedWeightsBruteForce compares with a direct check of common neighbours on random
// graphs, some with a hub.
func TestEmbeddedWeightsBruteForce(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := 20 + rng.IntN(60)
		var edges []Edge
		for range 3 * n {
			edges = append(edges, Edge{int32(rng.IntN(n)), int32(rng.IntN(n)), float32(1 + rng.IntN(3))})
		}
		if seed%2 == 0 {
			for v := 1; v < n; v += 2 {
				edges = append(edges, Edge{0, int32(v), 1})
			}
		}
		g := buildCSR(n, edges)
		adj := make([]map[int32]bool, n)
		for u := range n {
			adj[u] = map[int32]bool{}
			for _, v := range g.nbr[g.off[u]:g.off[u+1]] {
				adj[u][v] = true
			}
		}
		got := embeddedWeights(g)
		for u := range n {
			for i := g.off[u]; i < g.off[u+1]; i++ {
				v, want := g.nbr[i], g.w[i]
				for x := range adj[u] {
					if adj[v][x] {
						want = 2 * g.w[i]
						break
					}
				}
				if got[i] != want {
					t.Fatalf("seed %d: edge %d–%d weighs %v, want %v", seed, u, v, got[i], want)
				}
			}
		}
	}
}

func TestSplitDisconnected(t *testing.T) {
	// Path 0-1-2 and edge 3-4. Community 0 holds {0, 2, 3, 4}, whose connected pieces are {0},
	// {2} and {3, 4}; community 1 holds node 1 alone.
	g := buildCSR(5, []Edge{{0, 1, 1}, {1, 2, 1}, {3, 4, 1}})
	labels := []int32{0, 1, 0, 0, 0}
	splitDisconnected(g, labels)
	if want := []int32{0, 1, 2, 3, 3}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %v, want %v", labels, want)
	}
}
