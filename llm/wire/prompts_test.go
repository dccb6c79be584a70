package wire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleInputs has one input per task.
func sampleInputs() map[string]any {
	at := "2023-05-01T00:00:00Z"
	return map[string]any{
		TaskExtract:       sampleExtractInput(),
		TaskExtractWindow: sampleWindowInput(),
		TaskJudgeFact: JudgeInput{ReferenceTime: "2023-06-01T10:00:00Z",
			New:        FactIn{Predicate: "LIVES_IN", Fact: "Melanie lives in Busan.", ValidAt: &at},
			Existing:   []FactIn{{ID: "E0", Predicate: "LIVES_IN", Fact: "Melanie lives in Seoul."}},
			Candidates: []FactIn{{ID: "I0", Predicate: "LIVES_IN", Fact: "Melanie lives in Seoul."}}},
		TaskSummarize:       SummarizeInput{Entities: []EntityFactsIn{{ID: "x1", Name: "Melanie", Facts: []string{"Melanie paints."}}}},
		TaskMergeSummaries:  MergeInput{Summaries: []string{"Melanie paints.", "Caroline counsels.", "Melanie and Caroline are friends."}},
		TaskNameCommunity:   NameInput{Summary: "Melanie and Caroline are friends who talk about art."},
		TaskExtractEntities: sampleExtractInput(),
		TaskExtractFacts: FactsInput{Episode: sampleExtractInput().Episode,
			Entities: []ExtractedEntity{{Name: "Melanie", Type: "Person"}, {Name: "부산", Type: "Place"}}},
		TaskResolveEntities: ResolveInput{Entities: []CandidateIn{{ID: "N0", Name: "Seoyeon Park", Type: "Person"},
			{ID: "N1", Name: "서연", Type: "Entity", Facts: []string{"서연 works at Naver."}}}, Pairs: []PairIn{{ID: "P0", A: "N0", B: "N1"}}},
		TaskDedupeFacts: DedupeInput{Facts: []FactIn{{ID: "F0", Predicate: "LIVES_IN", Fact: "Melanie lives in Busan."},
			{ID: "F1", Predicate: "RESIDES_IN", Fact: "Melanie resides in Busan."}}, Pairs: []PairIn{{ID: "P0", A: "F0", B: "F1"}}},
		TaskAnswerQuestion: AnswerInput{QuestionTime: "2023-06-01T10:00:00Z", Question: "Where does Melanie live?",
			Context: "<FACTS>\n  - Melanie lives in Busan. (Date range: 2023-05-01T00:00:00Z - present)\n</FACTS>"},
		TaskGradeAnswer: GradeInput{Question: "Where does Melanie live?", GoldAnswer: "Busan", Answer: "In Busan."},
	}
}

func TestRenderEndsWithInput(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	inputs := sampleInputs()
	if len(inputs) != len(Tasks()) {
		t.Fatalf("%d sample inputs for %d tasks", len(inputs), len(Tasks()))
	}
	for _, task := range Tasks() {
		t.Run(task, func(t *testing.T) {
			in := inputs[task]
			msgs, err := p.Render(task, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 2 || msgs[0].Role != RoleSystem || msgs[1].Role != RoleUser || msgs[0].Content == "" {
				t.Fatalf("unexpected messages: %+v", msgs)
			}
			raw, _ := json.Marshal(in)
			if want := InputFence + string(raw) + "\n```"; !strings.HasSuffix(msgs[1].Content, want) {
				t.Fatalf("user message does not end with the fenced input:\n%s", msgs[1].Content)
			}
			// The fenced JSON decodes back into the input, as the offline responder reads it.
			body := msgs[1].Content[strings.LastIndex(msgs[1].Content, InputFence)+len(InputFence):]
			back := reflect.New(reflect.TypeOf(in))
			if err := json.Unmarshal([]byte(strings.TrimSuffix(body, "\n```")), back.Interface()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back.Elem().Interface(), in) {
				t.Fatalf("round trip changed the input")
			}
			// A pointer to the input renders the same messages.
			ptr := reflect.New(reflect.TypeOf(in))
			ptr.Elem().Set(reflect.ValueOf(in))
			if again, err := p.Render(task, ptr.Interface()); err != nil || !reflect.DeepEqual(again, msgs) {
				t.Fatalf("pointer input rendered differently: %v", err)
			}
		})
	}
}

func TestRenderExtractGolden(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.Render(TaskExtract, sampleExtractInput())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("=== " + m.Role + "\n" + m.Content + "\n")
	}
	golden(t, "extract_prompt.golden", []byte(b.String()))

	// Without an ontology the prompt says so instead of listing types, and points at no list.
	in := sampleExtractInput()
	in.EntityTypes, in.EdgeTypes, in.Previous = nil, nil, nil
	msgs, err = p.Render(TaskExtract, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs[0].Content, `type: "Entity"; attributes: [].`) || strings.Contains(msgs[0].Content, "LIVES_IN (from") ||
		strings.Contains(msgs[0].Content, "below") {
		t.Errorf("empty ontology rendered wrongly:\n%s", msgs[0].Content)
	}
}

// TestRenderWindowGolden pins the window prompt, and that its static part comes first: two
// windows of other episodes render the same system message and the same user message up to the
// context, so a provider's prefix cache keeps everything before it.
func TestRenderWindowGolden(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	in := sampleWindowInput()
	msgs, err := p.Render(TaskExtractWindow, in)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("=== " + m.Role + "\n" + m.Content + "\n")
	}
	golden(t, "extract_window_prompt.golden", []byte(b.String()))

	other := in
	other.Previous = []EpisodeIn{{Speaker: "Dana", Content: "Hello."}}
	other.Episodes = []WindowEpisodeIn{{N: 1, ReferenceTime: "2024-01-01T00:00:00Z", Source: "text", Content: "Acme hired Dana."}}
	again, err := p.Render(TaskExtractWindow, other)
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Content != msgs[0].Content {
		t.Fatal("the system message depends on the window")
	}
	prefix := msgs[1].Content[:strings.Index(msgs[1].Content, `"previous"`)]
	if !strings.HasPrefix(again[1].Content, prefix) || !strings.Contains(prefix, `"entity_types"`) {
		t.Fatalf("the user messages of two windows do not share the static prefix %q", prefix)
	}
}

func TestRenderErrors(t *testing.T) {
	p, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, task string
		in         any
		want       string
	}{
		{"unknown task", "nope", NameInput{}, "unknown task"},
		{"wrong type", TaskExtract, NameInput{}, "want wire.ExtractInput"},
		{"nil", TaskNameCommunity, nil, "nil input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := p.Render(tt.task, tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestPromptsDirOverride(t *testing.T) {
	base, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(TaskNameCommunity+".user.tmpl", "Name it, please.")
	write("README.md", "not a template")
	over, err := LoadPrompts(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range Tasks() {
		changed := base.Hash(task) != over.Hash(task)
		if changed != (task == TaskNameCommunity) {
			t.Errorf("%s: hash changed = %v", task, changed)
		}
		if len(base.Hash(task)) != 64 {
			t.Errorf("%s: hash %q is not sha256 hex", task, base.Hash(task))
		}
	}
	msgs, err := over.Render(TaskNameCommunity, NameInput{Summary: "s"})
	if err != nil || !strings.HasPrefix(msgs[1].Content, "Name it, please.\n\n"+InputFence) {
		t.Fatalf("override not used: %v %q", err, msgs)
	}
	if base.Hash("nope") != "" {
		t.Error("unknown task has a hash")
	}

	write("name_comunity.user.tmpl", "typo")
	if _, err := LoadPrompts(dir); err == nil || !strings.Contains(err.Error(), "name_comunity.user.tmpl") {
		t.Fatalf("misspelt override accepted: %v", err)
	}
	os.Remove(filepath.Join(dir, "name_comunity.user.tmpl"))
	write(TaskExtract+".system.tmpl", "{{.Nope")
	if _, err := LoadPrompts(dir); err == nil || !strings.Contains(err.Error(), "parsing prompt extract_graph.system.tmpl") {
		t.Fatalf("broken template accepted: %v", err)
	}
	if _, err := LoadPrompts(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("missing prompts dir accepted")
	}
}

func TestFilesListsEveryTemplate(t *testing.T) {
	files := Files()
	if len(files) != 2*len(Tasks()) {
		t.Fatalf("Files() = %v", files)
	}
}
