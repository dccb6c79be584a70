package llm

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/wire"
)

func TestSalvage(t *testing.T) {
	c := newTestClient(t, &fakeServer{replies: []reply{{content: "{}"}}}, nil, nil)
	task := c.tasks[wire.TaskExtractEntities]
	ent := func(name string) string {
		return `{"name":"` + name + `","type":"Person","attributes":[]}`
	}
	cases := []struct {
		name    string
		cut     string
		want    []string // names kept; nil: no salvage
		repeats int
	}{
		{"a loop of one item", `{"entities":[` + ent("Ann") + `,` + ent("Bo") + `,` + ent("Bo") + `,` + ent("Bo") + `,{"name":"B`,
			[]string{"Ann", "Bo"}, 2},
		{"cut after a comma", `{"entities":[` + ent("Ann") + `,` + ent("Bo") + `,`, []string{"Ann", "Bo"}, 0},
		{"cut inside an item's list", `{"entities":[` + ent("Ann") + `,{"name":"Bo","type":"Person","attributes":[{"name":"age"`,
			[]string{"Ann"}, 0},
		{"braces and quotes inside strings", `{"entities":[` + ent(`A \"}]\" B`) + `,{"name":"x`, []string{`A "}]" B`}, 0},
		{"cut inside the first item", `{"entities":[{"name":"Ann","ty`, nil, 0},
		{"not JSON", `entities: Ann, Bo`, nil, 0},
		{"spaces and newlines", "{\n  \"entities\": [\n    " + ent("Ann") + " ,\n    " + ent("Ann") + "\n  , {", []string{"Ann"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, repeats, ok := salvage(task, []byte(tc.cut))
			if ok != (tc.want != nil) {
				t.Fatalf("salvage ok = %v (%s), want %v", ok, got, tc.want != nil)
			}
			if !ok {
				return
			}
			var out wire.EntitiesOutput
			if err := json.Unmarshal(got, &out); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range out.Entities {
				names = append(names, e.Name)
			}
			if !reflect.DeepEqual(names, tc.want) || repeats != tc.repeats {
				t.Errorf("kept %q with %d repeats dropped, want %q and %d", names, repeats, tc.want, tc.repeats)
			}
		})
	}
}

// TestCallSalvagesLoop: an answer cut while it repeats a list item is kept up to its last
// complete item, with no raised retry; it is counted and cached.
func TestCallSalvagesLoop(t *testing.T) {
	loop := `{"entities":[{"name":"Ann","type":"Person","attributes":[]}` + strings.Repeat(`,{"name":"Bo","type":"Person","attributes":[]}`, 5) + `,{"na`
	f := &fakeServer{replies: []reply{{content: loop, finish: wire.FinishLength}}}
	c := newTestClient(t, f, cache.NewMemory(), nil)
	var out wire.EntitiesOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtractEntities, sampleExtractInput(), &out); err != nil {
		t.Fatal(err)
	}
	if f.count() != 1 || len(out.Entities) != 2 || out.Entities[1].Name != "Bo" {
		t.Fatalf("%d requests, entities %+v; want one request and Ann, Bo", f.count(), out.Entities)
	}
	if u := c.Usage().Stages["extract"]; u.Truncated != 1 || u.Salvaged != 1 || u.Retries != 0 || u.InvalidAnswers != 0 {
		t.Errorf("usage %+v", u)
	}
	// The salvaged answer is the cached one: asked again, no request.
	if err := c.Call(context.Background(), "extract", wire.TaskExtractEntities, sampleExtractInput(), &out); err != nil || f.count() != 1 {
		t.Errorf("second call: %v, %d requests", err, f.count())
	}
}

// TestCallSalvagesLastCut: a cut answer that does not repeat itself is asked again with a
// raised limit and then with feedback; when the last answer is cut too, its complete items are
// the answer.
func TestCallSalvagesLastCut(t *testing.T) {
	cut := `{"entities":[{"name":"Ann","type":"Person","attributes":[]},{"name":"Bo","type":"Person","attributes":[]},{"na`
	f := &fakeServer{replies: []reply{{content: cut, finish: wire.FinishLength}}}
	c := newTestClient(t, f, nil, nil)
	var out wire.EntitiesOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtractEntities, sampleExtractInput(), &out); err != nil {
		t.Fatal(err)
	}
	if f.count() != 4 || len(out.Entities) != 2 {
		t.Fatalf("%d requests, entities %+v; want 4 requests (raised, then 2 with feedback) and Ann, Bo", f.count(), out.Entities)
	}
	if u := c.Usage().Stages["extract"]; u.Truncated != 4 || u.Salvaged != 1 || u.InvalidAnswers != 3 {
		t.Errorf("usage %+v", u)
	}
}
