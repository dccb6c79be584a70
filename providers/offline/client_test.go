package offline

import (
	"testing"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestThroughLLMClient runs every task through the real chat client and its embedded prompts
// over the in-process transport: the prompts end with the input block the responder parses, and
// its answers pass the client's schema validation.
func TestThroughLLMClient(t *testing.T) {
	hc := transport.NewInProcessHTTPClient(NewHandler(Options{}))
	c := llm.NewClient(llm.Options{BaseURL: "http://offline/v1", Model: "offline", MaxValidationRetries: -1}, hc, nil, nil)
	ctx := t.Context()

	var ex wire.ExtractOutput
	if err := c.Call(ctx, "extract", wire.TaskExtract, message("지훈", "3월 2일에 카카오를 그만두고 네이버로 이직했어요."), &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Facts) != 2 || ex.Facts[1].Target != "네이버" {
		t.Fatalf("extract: %+v", ex)
	}
	var jd wire.JudgeOutput
	err := c.Call(ctx, "temporal", wire.TaskJudgeFact, wire.JudgeInput{ReferenceTime: testRef,
		New:        wire.FactIn{Predicate: ex.Facts[1].Predicate, Fact: ex.Facts[1].Fact, ValidAt: ex.Facts[1].ValidAt},
		Candidates: []wire.FactIn{{ID: "I0", Predicate: "WORKS_AT", Fact: "지훈은 카카오에서 일한다.", ValidAt: ptr("2024-01-15T11:01:00Z")}}}, &jd)
	if err != nil || len(jd.Contradictions) != 1 || jd.Contradictions[0].ID != "I0" {
		t.Fatalf("judge: %+v %v", jd, err)
	}
	var sm wire.SummarizeOutput
	if err := c.Call(ctx, "summarize", wire.TaskSummarize, wire.SummarizeInput{Entities: []wire.EntityFactsIn{{ID: "a", Name: "지훈", Facts: []string{ex.Facts[1].Fact}}}}, &sm); err != nil || len(sm.Summaries) != 1 {
		t.Fatalf("summarize: %+v %v", sm, err)
	}
	var mg wire.MergeOutput
	if err := c.Call(ctx, "community", wire.TaskMergeSummaries, wire.MergeInput{Summaries: []string{"A.", "B."}}, &mg); err != nil || mg.Summary != "A. B." {
		t.Fatalf("merge: %+v %v", mg, err)
	}
	var nm wire.NameOutput
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, wire.NameInput{Summary: sm.Summaries[0].Summary}, &nm); err != nil || nm.Name == "" {
		t.Fatalf("name: %+v %v", nm, err)
	}
}
