package resolve

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// assigned is the extraction of a snapshot of object obj whose assignees are logins (nil:
// the record lacks the field), with its state and an event.
func assigned(obj, state string, logins []string, commenter string) stages.Extraction {
	a := graph.Declaration{Key: "title ASSIGNED_TO assignees.login", Relation: "ASSIGNED_TO", SubjectType: "Ticket",
		ObjectType: "Person", Kind: graph.DeclaredState}
	if logins == nil {
		a.Missing = "assignees.login: absent"
	}
	for _, l := range logins {
		a.Pairs = append(a.Pairs, graph.DeclaredPair{Subject: "Login fails", Object: l, Fact: "Login fails is assigned to " + l})
	}
	s := graph.Declaration{Key: "title HAS_STATE state", Relation: "HAS_STATE", Kind: graph.DeclaredState,
		Pairs: []graph.DeclaredPair{{Subject: "Login fails", Object: state, Fact: "Login fails is " + state}}}
	c := graph.Declaration{Key: "comment.user COMMENTED_ON title", Relation: "COMMENTED_ON", Kind: graph.DeclaredEvent}
	if commenter == "" {
		c.Missing = "comment.user.login: absent"
	} else {
		c.Pairs = []graph.DeclaredPair{{Subject: commenter, Object: "Login fails", Fact: commenter + " commented on Login fails"}}
	}
	return stages.Extraction{Object: obj, Declared: []graph.Declaration{a, s, c}}
}

// Declared facts become periods per object: a removed assignee's fact is closed by the
// snapshots that no longer show it (the first ends it), a record lacking the field closes
// nothing, an emptied list closes everything, a returning assignee opens a new fact, and events
// are never closed.
func TestDeclaredFactPeriods(t *testing.T) {
	exs := []stages.Extraction{
		assigned("7", "open", []string{"bob", "carol"}, ""), // 0
		assigned("8", "open", []string{"bob"}, ""),          // 1: another ticket, same title: its own facts
		assigned("7", "open", []string{"carol"}, "dan"),     // 2: bob removed
		assigned("7", "open", nil, "dan"),                   // 3: assignees absent: nothing closes
		assigned("7", "closed", []string{}, ""),             // 4: list emptied, state changed
		assigned("7", "closed", []string{"carol"}, ""),      // 5: carol again: a new fact
	}
	exs[1].Entities = ents("Bob:Person") // an LLM mention of the same name resolves with the declared one
	eps := episodes("g", len(exs))
	env := testEnv(t, &fakeLLM{})
	res := resolveT(t, env, Options{EntityTypes: nil}, "g", eps, exs, nil)
	var got []string
	ids := map[string]bool{}
	for _, f := range res.Facts {
		if !f.Declared {
			t.Errorf("fact %q not marked declared", f.Fact)
		}
		ids[f.UUID] = true
		closed := "-"
		for k, c := range f.Closures {
			if k == 0 {
				closed = ""
			} else {
				closed += ","
			}
			closed += fmt.Sprint(c.At.Hour() - t0.Hour())
		}
		got = append(got, fmt.Sprintf("%d %s closed@%s", f.Order, f.Fact, closed))
	}
	want := []string{
		"0 Login fails is assigned to bob closed@2,4,5",
		"0 Login fails is assigned to carol closed@4",
		"0 Login fails is open closed@4,5",
		"1 Login fails is assigned to bob closed@-",
		"1 Login fails is open closed@-",
		"2 dan commented on Login fails closed@-",
		"3 dan commented on Login fails closed@-",
		"4 Login fails is closed closed@-",
		"5 Login fails is assigned to carol closed@-",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("declared facts:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(ids) != len(res.Facts) {
		t.Errorf("%d ids for %d facts", len(ids), len(res.Facts))
	}
	bobs := 0
	defer checkNoObject(t)
	for _, e := range res.Entities {
		if strings.EqualFold(e.Name, "bob") {
			bobs++
		}
	}
	if bobs != 1 {
		t.Errorf("%d entities named bob; the LLM's Bob should resolve with the declared bob", bobs)
	}
}

// checkNoObject: records of no object (three tickets lacking mapping.object's field) are not
// snapshots of one shared object: none closes another's state facts, whatever they show.
func checkNoObject(t *testing.T) {
	t.Helper()
	exs := []stages.Extraction{
		assigned("", "open", []string{"bob"}, ""),
		assigned("", "closed", []string{"carol"}, ""),
		assigned("", "open", []string{}, ""),
		assigned("", "open", []string{"bob"}, ""),
	}
	res := resolveT(t, testEnv(t, &fakeLLM{}), Options{}, "g", episodes("g", len(exs)), exs, nil)
	opened := 0
	for _, f := range res.Facts {
		opened++
		if len(f.Closures) > 0 {
			t.Errorf("fact %q of record %d closed by %+v: records of no object close nothing", f.Fact, f.Order, f.Closures)
		}
	}
	if opened != 7 { // bob, open; carol, closed; open; bob, open
		t.Errorf("%d facts, want 7 (each record's own)", opened)
	}
}
