package offline

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestSummarize(t *testing.T) {
	long := strings.Repeat("Alice works at Kakao and enjoys long walks in Pangyo. ", 10)
	tests := []struct {
		name  string
		in    wire.EntityFactsIn
		want  string // exact, or prefix when cut
		exact bool
	}{
		{"joined", wire.EntityFactsIn{ID: "n1", Name: "Alice", Facts: []string{"Alice works at Kakao.", "Alice lives in Pangyo"}},
			"Alice works at Kakao. Alice lives in Pangyo.", true},
		{"repeats dropped", wire.EntityFactsIn{ID: "n2", Name: "Kakao", Facts: []string{"Alice works at Kakao.", "alice works at kakao"}},
			"Alice works at Kakao.", true},
		{"no facts", wire.EntityFactsIn{ID: "n3", Name: "지훈"}, "지훈.", true},
		{"cut", wire.EntityFactsIn{ID: "n4", Name: "Alice", Facts: []string{long}}, "Alice works at Kakao and enjoys", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := summarize(wire.SummarizeInput{Entities: []wire.EntityFactsIn{tt.in}})
			if len(out.Summaries) != 1 || out.Summaries[0].ID != tt.in.ID {
				t.Fatalf("summaries = %+v", out.Summaries)
			}
			got := out.Summaries[0].Summary
			if tt.exact && got != tt.want || !strings.HasPrefix(got, tt.want) {
				t.Errorf("summary = %q, want %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > entitySummaryMax {
				t.Errorf("summary has %d runes, max %d", n, entitySummaryMax)
			}
			if !tt.exact && (!strings.HasSuffix(got, "…") || strings.HasSuffix(got, " …")) {
				t.Errorf("cut summary %q should end with a word and …", got)
			}
		})
	}
}

func TestMergeSummaries(t *testing.T) {
	out := mergeSummaries(wire.MergeInput{Summaries: []string{"Alice works at Naver. Alice lives in Pangyo.", "Alice lives in Pangyo. Naver is in Seongnam."}})
	if want := "Alice works at Naver. Alice lives in Pangyo. Naver is in Seongnam."; out.Summary != want {
		t.Errorf("merged = %q, want %q", out.Summary, want)
	}
	var a, b []string
	for i := range 20 {
		a = append(a, fmt.Sprintf("카카오와 네이버는 판교에 %d번 있다.", i))
		b = append(b, fmt.Sprintf("지훈은 검색팀 소속이다 %d년.", i))
	}
	long := mergeSummaries(wire.MergeInput{Summaries: []string{strings.Join(a, " "), strings.Join(b, " ")}})
	if n := utf8.RuneCountInString(long.Summary); n > mergedSummaryMax || n < mergedSummaryMax/2 {
		t.Errorf("merged summary has %d runes", n)
	}
}

func TestNameCommunity(t *testing.T) {
	tests := []struct{ summary, want string }{
		{"Alice works at Naver. Alice used to work at Kakao. Naver is in Pangyo. Jiyoung works at Kakao with Alice.", "Alice, Naver and Kakao"},
		{"Acme Corp is on the Pro plan. Acme Corp is managed by Dana Lee.", "Acme Corp, Pro and Dana Lee"},
		{"지훈은 네이버에서 일한다. 지훈은 판교에 산다. 수아는 부산에 산다.", "지훈, 네이버, 판교"},
		{"the weather is nice.", "the weather is"},
		{"", "Community"},
	}
	for _, tt := range tests {
		if got := nameCommunity(wire.NameInput{Summary: tt.summary}).Name; got != tt.want {
			t.Errorf("name(%q) = %q, want %q", tt.summary, got, tt.want)
		}
	}
}
