package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestNamedEntities checks the named-entities variant: taken by the tasks that list entities
// for an input without entity types, and by no other; its schema, grammar and TaskOf take
// entities as bare names and only as names; EntityMention decodes a name as an entity of type
// "Entity" without attributes; EncodeAnswer writes an answer in the input's variant.
func TestNamedEntities(t *testing.T) {
	typed := ExtractInput{EntityTypes: []EntityTypeIn{{Name: "Person"}}}
	for _, c := range []struct {
		task  string
		input any
		named bool
	}{
		{TaskExtract, ExtractInput{}, true},
		{TaskExtract, &ExtractInput{}, true},
		{TaskExtract, []byte(`{"episode":{"content":"x"}}`), true},
		{TaskExtract, typed, false},
		{TaskExtract, []byte(`{"entity_types":[{"name":"Person"}]}`), false},
		{TaskExtract, ExtractInput{ExcludedTypes: []string{"Person"}}, false}, // a type to exclude is asked
		{TaskExtract, []byte(`{"excluded_types":["Person"]}`), false},
		{TaskExtractEntities, ExtractInput{}, true},
		{TaskExtractWindow, WindowInput{}, true},
		{TaskExtractWindow, WindowInput{EntityTypes: typed.EntityTypes}, false},
		{TaskExtractFacts, FactsInput{}, false}, // lists no entities in its answer
		{TaskJudgeFact, JudgeInput{}, false},
	} {
		task, err := LookupTask(c.task)
		if err != nil {
			t.Fatal(err)
		}
		if got := task.Named(c.input) != task; got != c.named {
			t.Errorf("%s, input %T %v: named %v, want %v", c.task, c.input, c.input, got, c.named)
		}
	}

	task, _ := LookupTask(TaskExtract)
	named := task.Named(ExtractInput{})
	fact := `{"subject":"Emma","predicate":"WORKS_AT","object":"Globex","fact":"Emma works at Globex.","kind":"state","valid_at":null,"invalid_at":null}`
	byName := `{"entities":["Emma","Globex"],"facts":[` + fact + `]}`
	byObject := `{"entities":[{"name":"Emma","type":"Entity","attributes":[]},{"name":"Globex","type":"Entity","attributes":[]}],"facts":[` + fact + `]}`
	for _, c := range []struct {
		task   *Task
		answer string
		ok     bool
	}{{named, byName, true}, {named, byObject, false}, {task, byObject, true}, {task, byName, false}} {
		if err := c.task.Schema.Validate([]byte(c.answer)); (err == nil) != c.ok {
			t.Errorf("named %v validates %s: %v, want ok %v", c.task == named, c.answer, err, c.ok)
		}
		if got := grammarRegexp(t, c.task.Grammar).MatchString(c.answer); got != c.ok {
			t.Errorf("the grammar (named %v) matches %s: %v, want %v", c.task == named, c.answer, got, c.ok)
		}
		if got := task.ForAnswer([]byte(c.answer)) == named; got != strings.Contains(c.answer, `["Emma"`) {
			t.Errorf("ForAnswer(%s) named %v", c.answer, got)
		}
	}
	if !strings.Contains(string(named.Capped), `"items":{"type":"string","maxLength":200}`) || GrammarTask(named.Grammar) != TaskExtract {
		t.Errorf("named schema %s, grammar names %q", named.Capped, GrammarTask(named.Grammar))
	}
	if got := TaskOf("", named.Capped, ""); got != TaskExtract {
		t.Errorf("TaskOf the named capped schema = %q", got)
	}
	if len(task.Variants()) != 2 || task.Variants()[1] != named {
		t.Errorf("variants of %s: %d", TaskExtract, len(task.Variants()))
	}

	var fromName, fromObject ExtractOutput
	if err := json.Unmarshal([]byte(byName), &fromName); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(byObject), &fromObject); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromName, fromObject) {
		t.Errorf("a name decodes as %+v, its object as %+v", fromName.Entities, fromObject.Entities)
	}

	for _, c := range []struct {
		input any
		want  string
	}{{ExtractInput{}, byName}, {typed, byObject}} {
		got, err := task.EncodeAnswer(c.input, fromObject)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(c.want), &w) != nil || !reflect.DeepEqual(g, w) {
			t.Errorf("EncodeAnswer for %T %v:\n got %s\nwant %s", c.input, c.input, got, c.want)
		}
	}
}

// TestNamedPrompts: a prompt asks for entities as bare names exactly when its request takes the
// named-entities variant (no entity types, none excluded), and for objects otherwise.
func TestNamedPrompts(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	types := []EntityTypeIn{{Name: "Person"}}
	excluded := []string{"Person"}
	ep := EpisodeIn{ReferenceTime: "2024-01-08T10:00:00Z", Source: "message", Speaker: "Emma", Content: "I work at Globex."}
	win := []WindowEpisodeIn{{N: 1, ReferenceTime: ep.ReferenceTime, Source: ep.Source, Speaker: ep.Speaker, Content: ep.Content}}
	for _, task := range []string{TaskExtract, TaskExtractEntities, TaskExtractWindow} {
		for _, in := range []any{
			ExtractInput{Episode: ep}, ExtractInput{Episode: ep, EntityTypes: types}, ExtractInput{Episode: ep, ExcludedTypes: excluded},
			WindowInput{Episodes: win}, WindowInput{Episodes: win, EntityTypes: types}, WindowInput{Episodes: win, ExcludedTypes: excluded},
		} {
			if _, window := in.(WindowInput); window != (task == TaskExtractWindow) {
				continue
			}
			msgs, err := p.Render(task, in)
			if err != nil {
				t.Fatal(err)
			}
			asksNames := strings.Contains(msgs[0].Content, "name alone")
			asksObjects := strings.Contains(msgs[0].Content, "attributes: ")
			if named := NamedEntities(in); asksNames != named || asksObjects == named {
				t.Errorf("%s, input %+v: the prompt asks names %v, objects %v; the request is named %v", task, in, asksNames, asksObjects, named)
			}
		}
	}
}
