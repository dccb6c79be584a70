package resolve

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSimilarPairs(t *testing.T) {
	long := "the lgbtq support group of the community center in downtown new york city"
	tests := []struct {
		name      string
		names     []string
		threshold float64
		want      [][2]int
	}{
		{"none", nil, 0.9, nil},
		{"one substitution in a long name", []string{long, "Alice", strings.Replace(long, "lgbtq", "lgbtk", 1)}, 0.9, [][2]int{{0, 2}}},
		{"normalization first", []string{"  ALICE  SMITH ", "alice smith", "Bob"}, 0.9, [][2]int{{0, 1}}},
		{"default threshold", []string{long, long + "s"}, 0, [][2]int{{0, 1}}},
		{"below threshold", []string{"jonathan smith", "jonathon smith"}, 0.9, nil},
		{"lower threshold", []string{"jonathan smith", "jonathon smith"}, 0.5, [][2]int{{0, 1}}},
		{"duplicates all pair", []string{"x", "Caroline", "caroline", "CAROLINE"}, 0.9, [][2]int{{1, 2}, {1, 3}, {2, 3}}},
		{"empty names never pair", []string{"", "...", ""}, 0.9, nil},
		{"threshold above one", []string{"alice", "alice"}, 1.5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SimilarPairs(tt.names, tt.threshold); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SimilarPairs = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSimilarPairsMatchesBruteForce compares SimilarPairs with an all-pairs exact Jaccard on
// random names with planted near-duplicates.
func TestSimilarPairsMatchesBruteForce(t *testing.T) {
	names := plantedNames(rand.New(rand.NewPCG(7, 11)), 300)
	for _, th := range []float64{0.8, 0.9} {
		want := bruteForcePairs(names, th)
		if len(want) < 20 {
			t.Fatalf("threshold %v: only %d true pairs; the generator plants too few", th, len(want))
		}
		if got := SimilarPairs(names, th); !reflect.DeepEqual(got, want) {
			t.Errorf("threshold %v: SimilarPairs found %d pairs, brute force %d\n got %v\nwant %v",
				th, len(got), len(want), got, want)
		}
	}
}

// TestSimilarPairsOrderIndependent checks that shuffling the input yields the same name pairs.
func TestSimilarPairsOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	names := plantedNames(rng, 200)
	pairNames := func(names []string) []string {
		var out []string
		for _, p := range SimilarPairs(names, 0.8) {
			a, b := names[p[0]], names[p[1]]
			out = append(out, min(a, b)+"|"+max(a, b))
		}
		slices.Sort(out)
		return out
	}
	want := pairNames(names)
	shuffled := slices.Clone(names)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got := pairNames(shuffled); !reflect.DeepEqual(got, want) {
		t.Errorf("shuffled input: %d pairs, want %d", len(got), len(want))
	}
}

// plantedNames returns n names: random long phrases, half of them followed by a variant with one
// or two character edits.
func plantedNames(rng *rand.Rand, n int) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz가나다라마바사"
	alphabet := []rune(letters)
	var out []string
	for len(out) < n {
		r := make([]rune, 20+rng.IntN(60))
		for i := range r {
			if i > 0 && rng.IntN(6) == 0 {
				r[i] = ' '
			} else {
				r[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		out = append(out, string(r))
		if rng.IntN(2) == 0 {
			for range 1 + rng.IntN(2) {
				r[1+rng.IntN(len(r)-2)] = alphabet[rng.IntN(len(alphabet))]
			}
			out = append(out, string(r))
		}
	}
	return out[:n]
}

// bruteForcePairs returns every pair with exact 3-gram Jaccard ≥ t.
func bruteForcePairs(names []string, t float64) [][2]int {
	sets, offs := shingleSets(names)
	var out [][2]int
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			a, b := sets[offs[i]:offs[i+1]], sets[offs[j]:offs[j+1]]
			if len(a) > 0 && len(b) > 0 && jaccardAtLeast(a, b, t) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

func TestJaccardAtLeast(t *testing.T) {
	tests := []struct {
		a, b []uint64
		t    float64
		want bool
	}{
		{[]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.9, true}, // exactly 9/10
		{[]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 11}, 0.9, false},
		{[]uint64{1, 2}, []uint64{1, 2}, 1, true},
		{[]uint64{1, 3}, []uint64{2, 4}, 0.1, false},
	}
	for _, tt := range tests {
		if got := jaccardAtLeast(tt.a, tt.b, tt.t); got != tt.want {
			t.Errorf("jaccardAtLeast(%v, %v, %v) = %v, want %v", tt.a, tt.b, tt.t, got, tt.want)
		}
	}
}

func BenchmarkSimilarPairs10k(b *testing.B) {
	names := plantedNames(rand.New(rand.NewPCG(1, 1)), 10_000)
	b.ReportAllocs()
	for b.Loop() {
		SimilarPairs(names, DefaultSimilarity)
	}
}
