package wire

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// Kinds of an extracted fact (ExtractedFact.Kind); the schema of TaskExtract allows only these.
const (
	KindState          = "state"
	KindEvent          = "event"
	KindPlan           = "plan"
	KindScheduledState = "scheduled_state"
)

// Task describes one LLM task: its input and output Go types and its strict answer schema.
type Task struct {
	Name   string
	Input  reflect.Type
	Output reflect.Type
	Schema *Schema
	Raw    []byte // Schema as sent on the wire; part of the cache key
	Capped []byte // Raw with the maxLength caps of free-text strings (schemaCaps)
	// Grammar is the GBNF of compact answers with the caps (FormatGrammar).
	Grammar string
	// GrammarVariant, when set, names the grammar ForInput writes per request in place of
	// Grammar (TaskExtractWindow: WindowGrammar); fingerprints and cache keys carry it.
	GrammarVariant string
}

// ForInput is the task as a request with input asks it: t itself, or for TaskExtractWindow a
// copy whose Grammar is WindowGrammar for the input's number of episodes.
func (t *Task) ForInput(input any) (*Task, error) {
	if t.GrammarVariant == "" {
		return t, nil
	}
	var k int
	switch in := input.(type) {
	case WindowInput:
		k = len(in.Episodes)
	case *WindowInput:
		k = len(in.Episodes)
	default:
		return nil, fmt.Errorf("writing the grammar of %s: input %T is not a window", t.Name, input)
	}
	g, err := WindowGrammar(t, k)
	if err != nil {
		return nil, err
	}
	c := *t
	c.Grammar = g
	return &c, nil
}

// Tasks returns every task name, sorted.
func Tasks() []string {
	names := make([]string, 0, len(taskTypes()))
	for name := range taskTypes() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// taskTypes pairs each task name with its input and output types (see tasks.go).
func taskTypes() map[string][2]reflect.Type {
	types := map[string][2]reflect.Type{
		TaskExtract:         {reflect.TypeFor[ExtractInput](), reflect.TypeFor[ExtractOutput]()},
		TaskJudgeFact:       {reflect.TypeFor[JudgeInput](), reflect.TypeFor[JudgeOutput]()},
		TaskSummarize:       {reflect.TypeFor[SummarizeInput](), reflect.TypeFor[SummarizeOutput]()},
		TaskMergeSummaries:  {reflect.TypeFor[MergeInput](), reflect.TypeFor[MergeOutput]()},
		TaskNameCommunity:   {reflect.TypeFor[NameInput](), reflect.TypeFor[NameOutput]()},
		TaskExtractEntities: {reflect.TypeFor[ExtractInput](), reflect.TypeFor[EntitiesOutput]()},
		TaskExtractFacts:    {reflect.TypeFor[FactsInput](), reflect.TypeFor[FactsOutput]()},
		TaskResolveEntities: {reflect.TypeFor[ResolveInput](), reflect.TypeFor[ResolveOutput]()},
		TaskDedupeFacts:     {reflect.TypeFor[DedupeInput](), reflect.TypeFor[DedupeOutput]()},
	}
	maps.Copy(types, qaTaskTypes())
	maps.Copy(types, windowTaskTypes())
	return types
}

// schemaEnums restricts string fields of answers to fixed values, keyed "TypeName.json_name".
func schemaEnums() map[string][]string {
	return map[string][]string{
		"ExtractedFact.kind": {KindState, KindEvent, KindPlan, KindScheduledState},
	}
}

// schemaOrder lists, per type name, the order in which the model should write the properties
// when it differs from the Go declaration order: the kind of a fact decides its date rules, so
// it comes before the dates.
func schemaOrder() map[string][]string {
	return map[string][]string{
		"ExtractedFact": {"subject", "predicate", "object", "fact", "kind", "valid_at", "invalid_at"},
	}
}

// maxStringCap is the largest cap llama.cpp's grammar accepts: its JSON-schema converter
// writes maxLength as that many nested optional characters, and a grammar past about 1,100 of
// them is refused ("exceeds sane defaults"; llama-cpp-python 0.3.36 then crashes).
const maxStringCap = 1000

// schemaCaps bounds, in characters, the free-text strings of answers, keyed
// "TypeName.json_name" (for a list of strings, each string). A constrained decoder stops a
// string at its cap, so a small model cannot loop inside one; the caps are far above what a
// good answer writes, and at most maxStringCap. They are sent only in FormatJSONObjectSchema and
// FormatGrammar.
func schemaCaps() map[string]int {
	const name, sentence, summary, id, date = 200, 600, maxStringCap, 32, 40
	return map[string]int{
		"ExtractedEntity.name": name, "ExtractedEntity.type": name,
		"EntityMention.name": name, "EntityMention.type": name,
		"AttributeValue.name": name, "AttributeValue.value": sentence,
		"ExtractedFact.subject": name, "ExtractedFact.object": name, "ExtractedFact.predicate": name,
		"ExtractedFact.fact": sentence, "ExtractedFact.valid_at": date, "ExtractedFact.invalid_at": date,
		"JudgeOutput.duplicate_ids": id, "Contradiction.id": id, "Contradiction.quote": name,
		"ResolveOutput.same_ids": id, "DedupeOutput.duplicate_ids": id,
		"EntitySummary.id": 64, "EntitySummary.summary": summary,
		"MergeOutput.summary": summary, "NameOutput.name": name,
		"AnswerOutput.answer": sentence,
	}
}

// LookupTask returns the description of a task, with its schema built from the output type.
func LookupTask(name string) (*Task, error) {
	types, ok := taskTypes()[name]
	if !ok {
		return nil, fmt.Errorf("looking up task %q: unknown task", name)
	}
	s, err := schemaOf(types[1], tables{enums: schemaEnums(), order: schemaOrder(), caps: schemaCaps()}, types[1].Name())
	if err != nil {
		return nil, fmt.Errorf("looking up task %q: %w", name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding schema of %q: %w", name, err)
	}
	capped, err := s.MarshalCapped()
	if err != nil {
		return nil, fmt.Errorf("encoding schema of %q: %w", name, err)
	}
	grammar, err := s.GBNF(name)
	if err != nil {
		return nil, err
	}
	t := &Task{Name: name, Input: types[0], Output: types[1], Schema: s, Raw: raw, Capped: capped, Grammar: grammar}
	if name == TaskExtractWindow {
		t.GrammarVariant = windowGrammarVariant
	}
	return t, nil
}
