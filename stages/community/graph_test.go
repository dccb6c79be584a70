package community

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/tkgraph/backfill/checkpoints"
)

// uuidPartition builds a group graph from entities and facts given by uuid and returns its
// communities as sorted lists of uuids, the lists sorted.
func uuidPartition(ents []entityRef, facts [][2]string) [][]string {
	g := newGroupGraph(ents)
	for _, f := range facts {
		g.addFact(f[0], f[1])
	}
	var out [][]string
	for _, members := range g.communities(Options{MinSize: 2}) {
		var us []string
		for _, u := range members {
			us = append(us, g.uuids[u])
		}
		slices.Sort(us)
		out = append(out, us)
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// TestPartitionIndependentOfInputOrder checks that the communities, as sets of uuids, do not
// change when the entities are listed in another order (so every node gets another position in
// the input), the facts are shuffled and their directions swapped.
func TestPartitionIndependentOfInputOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	edges, n := plantedPartition(rng, 600, 12, 2400)
	ents := make([]entityRef, n)
	for i := range ents {
		ents[i] = entityRef{uuid: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Append(nil, i)).String()}
	}
	facts := make([][2]string, len(edges))
	for i, e := range edges {
		facts[i] = [2]string{ents[e.A].uuid, ents[e.B].uuid}
	}
	want := uuidPartition(slices.Clone(ents), facts)
	if len(want) < 20 {
		t.Fatalf("only %d communities; the test needs a graph with structure", len(want))
	}
	for trial := range 4 {
		perm := slices.Clone(ents)
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		shuffled := slices.Clone(facts)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := range shuffled {
			if rng.IntN(2) == 0 {
				shuffled[i][0], shuffled[i][1] = shuffled[i][1], shuffled[i][0]
			}
		}
		if got := uuidPartition(perm, shuffled); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: communities differ after reordering the input", trial)
		}
	}
}

func TestGroupGraph(t *testing.T) {
	g := newGroupGraph([]entityRef{{"c", 3}, {"a", 1}, {"b", 2}, {"a", 9}})
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(g.uuids, want) {
		t.Errorf("uuids = %v, want %v", g.uuids, want)
	}
	if want := []int64{1, 2, 3}; !reflect.DeepEqual(g.created, want) {
		t.Errorf("created = %v, want %v (a repeated uuid keeps its first entry)", g.created, want)
	}
	for _, tt := range []struct {
		source, target string
		added          bool
	}{{"a", "c", true}, {"c", "b", true}, {"a", "a", false}, {"a", "zz", false}, {"", "b", false}} {
		if got := g.addFact(tt.source, tt.target); got != tt.added {
			t.Errorf("addFact(%q, %q) = %v, want %v", tt.source, tt.target, got, tt.added)
		}
	}
	if want := []Edge{{0, 2, 1}, {2, 1, 1}}; !reflect.DeepEqual(g.edges, want) {
		t.Errorf("edges = %v, want %v", g.edges, want)
	}
	if want := []int32{1, 1, 2}; !reflect.DeepEqual(g.degrees(), want) {
		t.Errorf("degrees = %v, want %v", g.degrees(), want)
	}
}

func TestCounts(t *testing.T) {
	for _, tt := range []struct {
		name      string
		fact      checkpoints.FactEdge
		onlyValid bool
		want      bool
	}{
		{"open fact", checkpoints.FactEdge{Open: true}, true, true},
		{"closed fact", checkpoints.FactEdge{}, true, false},
		{"closed fact, all facts counted", checkpoints.FactEdge{}, false, true},
	} {
		if got := counts(tt.fact, tt.onlyValid); got != tt.want {
			t.Errorf("%s: counts = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPickLeaves(t *testing.T) {
	deg := []int32{1, 5, 2, 5, 0, 3}
	picked, want := pickLeaves([][]int32{{0, 1, 2, 3}, {4, 5}}, deg, 3)
	if w := [][]int32{{1, 2, 3}, {4, 5}}; !reflect.DeepEqual(picked, w) {
		t.Errorf("picked %v, want %v (most facts first, ties by id, then in id order)", picked, w)
	}
	if w := []bool{false, true, true, true, true, true}; !reflect.DeepEqual(want, w) {
		t.Errorf("want %v, want %v", want, w)
	}
}
