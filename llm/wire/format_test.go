package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTaskOfUnknown(t *testing.T) {
	for _, tc := range []struct {
		name, system string
		schema       json.RawMessage
	}{{"no format", "You are helpful.", nil}, {"other schema", "", json.RawMessage(`{"type":"object"}`)},
		{"bad schema", "", json.RawMessage(`{`)}, {"unknown name in system", SchemaIntro + "poem: write", nil}} {
		if got := TaskOf("", tc.schema, tc.system); got != "" {
			t.Errorf("%s: TaskOf = %q, want none", tc.name, got)
		}
	}
	if CheckFormat("json_schema") != nil || CheckFormat("") != nil || CheckFormat("xml") == nil {
		t.Error("CheckFormat")
	}
}

func TestSchemaCapsOnlyOnCappedWire(t *testing.T) {
	for key, n := range schemaCaps() {
		if n < 1 || n > maxStringCap {
			t.Errorf("cap of %s is %d, outside 1..%d (llama.cpp refuses longer bounded strings)", key, n, maxStringCap)
		}
	}
	for _, name := range Tasks() {
		task, err := LookupTask(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(task.Raw), "maxLength") {
			t.Errorf("%s: the json_schema wire schema carries maxLength", name)
		}
		// Every answer with a free-text string caps it (grade_answer's is a single boolean).
		if strings.Contains(string(task.Raw), `"string"`) && !strings.Contains(string(task.Capped), "maxLength") {
			t.Errorf("%s: no free-text string is capped", name)
		}
		// Caps guard decoding; they do not judge answers.
		if name == TaskNameCommunity {
			if err := task.Schema.Validate([]byte(`{"name":"` + strings.Repeat("x", 500) + `"}`)); err != nil {
				t.Errorf("a long name fails validation: %v", err)
			}
		}
	}
}
