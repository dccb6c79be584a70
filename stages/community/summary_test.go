package community

import (
	"context"
	"reflect"
	"testing"
)

func TestReduceAll(t *testing.T) {
	env, fake := testEnv(t)
	got, err := reduceAll(context.Background(), env, [][]string{nil, {"a"}, {"a", "b", "c", "d", "e"}, {"x", "y"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "a", "(((a + b) + (c + d)) + e)", "(x + y)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reduceAll = %q, want %q", got, want)
	}
	if calls := fake.take(); len(calls) != 4+1 {
		t.Errorf("%d merges, want 5: %v", len(calls), calls)
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
