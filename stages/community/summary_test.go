package community

import (
	"context"
	"reflect"
	"testing"
)

// TestReduceAll merges in runs of the fan-in, round after round: pairwise (Graphiti's way) and
// four at a time, a run of one moving on unmerged.
func TestReduceAll(t *testing.T) {
	parts := [][]string{nil, {"a"}, {"a", "b", "c", "d", "e"}, {"x", "y"}, {"1", "2", "3", "4", "5", "6", "7", "8", "9"}}
	for _, tt := range []struct {
		fanIn  int
		want   []string
		merges int
	}{
		{2, []string{"", "a", "(((a + b) + (c + d)) + e)", "(x + y)", "((((1 + 2) + (3 + 4)) + ((5 + 6) + (7 + 8))) + 9)"}, 4 + 1 + 8},
		{4, []string{"", "a", "((a + b + c + d) + e)", "(x + y)", "((1 + 2 + 3 + 4) + (5 + 6 + 7 + 8) + 9)"}, 2 + 1 + 3},
		{16, []string{"", "a", "(a + b + c + d + e)", "(x + y)", "(1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9)"}, 1 + 1 + 1},
	} {
		env, fake := testEnv(t)
		got, err := reduceAll(context.Background(), env, parts, tt.fanIn, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("fan-in %d: reduceAll = %q, want %q", tt.fanIn, got, tt.want)
		}
		if calls := fake.take(); len(calls) != tt.merges {
			t.Errorf("fan-in %d: %d merges, want %d: %v", tt.fanIn, len(calls), tt.merges, calls)
		}
	}
}

func TestNameAll(t *testing.T) {
	env, fake := testEnv(t)
	got, err := nameAll(context.Background(), env, []string{"(Ann: about Ann + Bo)", ""}, []string{"Ann, Bo", "Cy, Di"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Name of Ann", "Cy, Di"}; !reflect.DeepEqual(got, want) {
		t.Errorf("nameAll = %q, want %q", got, want)
	}
	if calls := fake.take(); len(calls) != 1 {
		t.Errorf("%d calls, want 1 (no call for an empty summary): %v", len(calls), calls)
	}
}

func TestTextHelpers(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{leafText(" Ann ", " likes tea "), "Ann: likes tea"},
		{leafText("Ann", "  "), "Ann"},
		{firstLine("\n  Tea lovers \nsecond"), "Tea lovers"},
		{firstLine(" \n "), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
