package offline

import (
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func ptr(s string) *string { return &s }

func TestJudge(t *testing.T) {
	fact := func(id, pred, text, valid, invalid string) wire.FactIn {
		f := wire.FactIn{ID: id, Predicate: pred, Fact: text}
		if valid != "" {
			f.ValidAt = ptr(valid)
		}
		if invalid != "" {
			f.InvalidAt = ptr(invalid)
		}
		return f
	}
	jan, mar := "2024-01-08T14:01:00Z", "2024-03-02T00:00:00Z"
	tests := []struct {
		name       string
		new        wire.FactIn
		existing   []wire.FactIn
		candidates []wire.FactIn
		dups, cons []string
		quotes     []string // of the contradictions, when checked
	}{
		{"employer change",
			fact("", "WORKS_AT", "Alice works at Naver (since 2024-03-02).", mar, ""), nil,
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, []string{"I0"}, []string{"Naver"}},
		{"same employer is a duplicate, not a contradiction",
			fact("", "WORKS_AT", "alice works at  KAKAO.", mar, ""),
			[]wire.FactIn{fact("E0", "WORKS_AT", "Alice works at Kakao (since 2024-01-01).", jan, "")},
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao (since 2024-01-01).", jan, "")},
			[]string{"E0"}, nil, nil},
		{"closure of the same employer is neither",
			fact("", "WORKS_AT", "Alice worked at Kakao (until 2024-03-02).", "", mar),
			[]wire.FactIn{fact("E0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
		{"equal text is a duplicate",
			fact("", "PLANS_TO", "Alice plans to resign (2024-05-31).", jan, ""),
			[]wire.FactIn{fact("E0", "PLANS_TO", "alice plans to resign (2024-05-31)", jan, ""), fact("E1", "PLANS_TO", "Alice plans to travel.", jan, "")},
			nil, []string{"E0"}, nil, nil},
		{"another subject sharing the object",
			fact("", "WORKS_AT", "Bob works at Kakao.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
		{"another subject with another object",
			fact("", "WORKS_AT", "Bob works at Naver.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
		{"non-functional predicate",
			fact("", "VISITED", "Alice visited Busan.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "VISITED", "Alice visited Jeju.", jan, "")},
			nil, nil, nil},
		{"different predicates",
			fact("", "LIVES_IN", "Alice lives in Seoul.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
		{"disjoint intervals",
			fact("", "LIVES_IN", "Alice lives in Seoul.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "LIVES_IN", "Alice lived in Busan (until 2024-01-01).", "", "2024-01-01T00:00:00Z")},
			nil, nil, nil},
		{"team change in Korean",
			fact("", "MEMBER_OF_TEAM", "지훈은 검색팀 소속이다 (2024-02-13부터).", mar, ""), nil,
			[]wire.FactIn{fact("I0", "MEMBER_OF_TEAM", "지훈은 데이터플랫폼팀 소속이다.", jan, ""), fact("I1", "MEMBER_OF_TEAM", "수아는 디자인팀 소속이다.", jan, "")},
			nil, []string{"I0"}, nil},
		{"plan change",
			fact("", "HAS_PLAN", "Acme Corp is on the Pro plan (since 2024-03-01).", "2024-03-01T00:00:00Z", ""), nil,
			[]wire.FactIn{fact("I0", "HAS_PLAN", "Acme Corp is on the Basic plan.", "2024-01-10T09:00:00Z", "")},
			nil, []string{"I0"}, nil},
		{"preference over the old one",
			fact("", "PREFERS", "Alice prefers coffee over green tea.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "PREFERS", "Alice's favorite drink is green tea.", jan, ""), fact("I1", "PREFERS", "Alice prefers hiking.", jan, "")},
			nil, []string{"I0"}, []string{"over green tea"}},
		{"new favourite of the same category",
			fact("", "PREFERS", "Alice's favorite drink is coffee.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "PREFERS", "Alice's favorite drink is green tea.", jan, ""), fact("I1", "PREFERS", "Alice's favorite city is Lisbon.", jan, "")},
			nil, []string{"I0"}, []string{"coffee"}},
		{"Korean preference",
			fact("", "PREFERS", "지훈은 아메리카노보다 라떼를 더 좋아한다.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "PREFERS", "지훈은 아메리카노를 좋아한다.", jan, "")},
			nil, []string{"I0"}, []string{"아메리카노보다"}},
		{"unreadable sentences are never contradictions",
			fact("", "WORKS_AT", "Alice is employed by Naver.", mar, ""), nil,
			[]wire.FactIn{fact("I0", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
		{"ids of the wrong namespace are ignored",
			fact("", "WORKS_AT", "Alice works at Naver.", mar, ""),
			[]wire.FactIn{fact("I9", "WORKS_AT", "Alice works at Naver.", mar, "")},
			[]wire.FactIn{fact("E9", "WORKS_AT", "Alice works at Kakao.", jan, "")},
			nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := judge(wire.JudgeInput{ReferenceTime: mar, New: tt.new, Existing: tt.existing, Candidates: tt.candidates})
			if out.Duplicates == nil || out.Contradictions == nil {
				t.Fatal("answer lists must be empty arrays, not null")
			}
			var cons, quotes []string
			for _, c := range out.Contradictions {
				cons, quotes = append(cons, c.ID), append(quotes, c.Quote)
				if c.Quote == "" || !strings.Contains(tt.new.Fact, c.Quote) {
					t.Errorf("quote %q of %s is not a part of the new sentence %q", c.Quote, c.ID, tt.new.Fact)
				}
			}
			if !slices.Equal(out.Duplicates, orEmpty(tt.dups)) || !slices.Equal(orEmpty(cons), orEmpty(tt.cons)) {
				t.Errorf("got dups %v cons %v, want %v %v", out.Duplicates, cons, tt.dups, tt.cons)
			}
			if tt.quotes != nil && !slices.Equal(quotes, tt.quotes) {
				t.Errorf("quotes %q, want %q", quotes, tt.quotes)
			}
		})
	}
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestTemplatesRoundTrip checks that every sentence form reads back the slots it was written
// with, including a date qualifier and Korean particles after both kinds of endings.
func TestTemplatesRoundTrip(t *testing.T) {
	for _, tmpl := range factTemplates {
		for _, names := range [][2]string{{"Alice Kim", "Kakao Mobility"}, {"지훈", "네이버"}, {"김지은", "판교"}} {
			p := factParts{S: names[0], O: names[1], Y: "green tea", C: "drink", V: "resign at the end of May"}
			text := renderFact(tmpl.pred, tmpl.lang, tmpl.variant, tmpl.closed, p, "since 2024-01-01")
			got, variant, ok := parseFact(tmpl.pred, text)
			if !ok || variant != tmpl.variant || got.S != p.S {
				t.Fatalf("%s %q: read back %+v %q %v", tmpl.pred, text, got, variant, ok)
			}
			if tmpl.variant != variantNoObject && tmpl.pred != "PLANS_TO" && got.O != p.O {
				t.Errorf("%q: object %q, want %q", text, got.O, p.O)
			}
		}
	}
}
