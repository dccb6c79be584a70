package offline

import (
	"encoding/json"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

// FuzzExtract checks that any episode text gives a schema-valid extract_graph answer whose facts
// name listed entities, without panicking.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"I left Kakao on March 2 and joined Naver.", "3월 2일에 카카오를 그만두고 네이버로 이직했어요.",
		`{"customer":"Acme","plan":"Pro","effective_date":"2024-03-01"}`, "My favorite drink is \"green tea\".",
		"보고서는 금요일까지 끝낼게요.", "I will resign at the end of next month.", "", "{", "팀으로 옮겼어요",
	} {
		f.Add(s, "Alice")
	}
	spec, err := wire.LookupTask(wire.TaskExtract)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content, speaker string) {
		in := wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: testRef, Source: "message", Speaker: speaker, Content: content}}
		checkEndpoints(t, extract(in))
		raw, err := json.Marshal(extractGraph(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := spec.Schema.Validate(raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	})
}
