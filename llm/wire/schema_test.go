package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestTaskSchemasGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, task.Raw, "", "  "); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", name, err)
		}
		buf.WriteString("## " + name + "\n" + pretty.String() + "\n")
	}
	golden(t, "schemas.golden", buf.Bytes())
}

// TestSchemasStrict checks the strict-mode rules on every object of every task schema.
func TestSchemasStrict(t *testing.T) {
	var walk func(path string, s *Schema)
	walk = func(path string, s *Schema) {
		if s.has("object") {
			if len(s.Required) != len(s.Properties) {
				t.Errorf("%s: %d required of %d properties", path, len(s.Required), len(s.Properties))
			}
			for _, p := range s.Properties {
				walk(path+"."+p.Name, p.Schema)
			}
		}
		if s.Items != nil {
			walk(path+"[]", s.Items)
		}
	}
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		walk(name, task.Schema)
		if !strings.Contains(string(task.Raw), `"additionalProperties":false`) {
			t.Errorf("%s: no additionalProperties:false", name)
		}
	}
	task, _ := LookupTask(TaskExtract)
	if !strings.Contains(string(task.Raw), `"valid_at":{"type":["string","null"]}`) {
		t.Errorf("valid_at is not nullable: %s", task.Raw)
	}
}

func TestValidate(t *testing.T) {
	task, err := LookupTask(TaskExtract)
	if err != nil {
		t.Fatal(err)
	}
	fact := func(field string) string {
		f := map[string]string{"subject": `"A"`, "object": `"B"`, "predicate": `"KNOWS"`, "fact": `"A knows B."`,
			"valid_at": `null`, "invalid_at": `"2024-01-01T00:00:00Z"`, "kind": `"state"`}
		if k, v, ok := strings.Cut(field, "="); ok {
			if v == "" {
				delete(f, k)
			} else {
				f[k] = v
			}
		}
		var parts []string
		for _, k := range []string{"subject", "object", "predicate", "fact", "valid_at", "invalid_at", "kind", "extra"} {
			if v, ok := f[k]; ok {
				parts = append(parts, `"`+k+`":`+v)
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	doc := func(third string) string {
		return `{"entities":[{"name":"A","type":"Entity","attributes":[]},{"name":"B","type":"Entity","attributes":[]}],"facts":[` +
			fact("") + "," + fact("") + "," + third + "]}"
	}
	tests := []struct {
		name, data, want string
	}{
		{"valid", doc(fact("")), ""},
		{"null where string", doc(fact("fact=null")), "facts[2].fact: expected string, got null"},
		{"number where nullable", doc(fact("valid_at=17")), "facts[2].valid_at: expected string or null, got integer"},
		{"missing", doc(fact("kind=")), "facts[2].kind: missing required property"},
		{"extra", doc(fact("extra=1")), "facts[2].extra: unexpected property"},
		{"enum", doc(fact(`kind="rumour"`)), `facts[2].kind: "rumour" is not one of state, event, plan, scheduled_state`},
		{"array expected", `{"entities":{},"facts":[]}`, "entities: expected array, got object"},
		{"top level", `[]`, "answer: expected object, got array"},
		{"entity field", `{"entities":[{"name":"A"}],"facts":[]}`, "entities[0].type: missing required property"},
		{"not json", `{"entities":`, "parsing answer as JSON"},
		{"trailing", validExtract + ` {}`, "extra data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := task.Schema.Validate([]byte(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	var se *SchemaError
	if err := task.Schema.Validate([]byte(doc(fact("valid_at=17")))); !errors.As(err, &se) || se.Path != "facts[2].valid_at" {
		t.Fatalf("want *SchemaError at facts[2].valid_at, got %#v", err)
	}
}

func TestSchemaOfNumbers(t *testing.T) {
	type T struct {
		N int     `json:"n"`
		F float64 `json:"f"`
		B bool    `json:"b"`
	}
	s, err := SchemaOf(reflectTypeOf[T](), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ data, want string }{
		{`{"n":1,"f":1,"b":true}`, ""},
		{`{"n":1.5,"f":1.5,"b":true}`, "n: expected integer, got number"},
		{`{"n":1,"f":"x","b":true}`, "f: expected number, got string"},
		{`{"n":1,"f":2,"b":"yes"}`, "b: expected boolean, got string"},
	} {
		err := s.Validate([]byte(tt.data))
		if (tt.want == "") != (err == nil) || (err != nil && err.Error() != tt.want) {
			t.Errorf("%s: error = %v, want %q", tt.data, err, tt.want)
		}
	}
}
