package offline

import (
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestExtractRecords(t *testing.T) {
	const S = "state"
	tests := []struct {
		name, content string
		want          []wantFact
	}{
		{"plan with effective date", `{"customer":"Acme Corp","effective_date":"2024-03-01","plan":"Pro","previous_plan":"Basic"}`, []wantFact{
			{"Acme Corp", "HAS_PLAN", "Pro plan", S, "2024-03-01", "", "Acme Corp is on the Pro plan (since 2024-03-01)."},
			{"Acme Corp", "HAS_PLAN", "Basic plan", S, "", "2024-03-01", "Acme Corp was on the Basic plan (until 2024-03-01)."}}},
		{"plan scheduled in the future", `{"customer":"Acme Corp","plan":"Enterprise","starts_at":"2024-04-01"}`,
			[]wantFact{{"Acme Corp", "HAS_PLAN", "Enterprise plan", "scheduled_state", "2024-04-01", "", ""}}},
		{"nested customer name", `{"customer":{"id":7,"name":"Globex"},"plan":"Basic plan"}`,
			[]wantFact{{"Globex", "HAS_PLAN", "Basic plan", S, "ref", "", "Globex is on the Basic plan."}}},
		{"out of stock with restock date", `{"product":"Aurora Lamp","restock_date":"Dec 25","status":"out_of_stock","store":"Downtown store"}`,
			[]wantFact{{"Aurora Lamp", "IS_OUT_OF_STOCK", "Downtown store", S, "ref", "2024-12-25", "(until 2024-12-25)"}}},
		{"out of stock from a note", `{"product":"Aurora Lamp","status":"sold out","note":"back in stores, until Jan 5 sold out"}`,
			[]wantFact{{"Aurora Lamp", "IS_OUT_OF_STOCK", "out of stock", S, "ref", "2025-01-05", "Aurora Lamp is out of stock (until 2025-01-05)."}}},
		{"Korean out of stock", `{"비고":"12월 25일까지 품절","상품":"무선 이어폰 X2","상태":"품절","매장":"강남점"}`,
			[]wantFact{{"무선 이어폰 X2", "IS_OUT_OF_STOCK", "강남점", S, "ref", "2024-12-25", "무선 이어폰 X2는 강남점에서 품절이다 (2024-12-25까지)."}}},
		{"Korean plan change", `{"고객":"한빛상사","요금제":"프로","이전_요금제":"베이직","적용일":"2024-03-01"}`, []wantFact{
			{"한빛상사", "HAS_PLAN", "프로 요금제", S, "2024-03-01", "", "한빛상사는 프로 요금제를 사용한다 (2024-03-01부터)."},
			{"한빛상사", "HAS_PLAN", "베이직 요금제", S, "", "2024-03-01", "사용했다"}}},
		{"other fields", `{"account_manager":"Dana Lee","city":"Boston","company":"Initech","user":"Peter","status":"active"}`, []wantFact{
			{"Peter", "HAS_STATUS", "active", S, "ref", "", "Peter has status active."},
			{"Peter", "WORKS_AT", "Initech", S, "ref", "", "Peter works at Initech."},
			{"Peter", "LOCATED_IN", "Boston", S, "ref", "", ""},
			{"Peter", "MANAGED_BY", "Dana Lee", S, "ref", "", ""}}},
		{"no subject", `{"ticket":"T-1","priority":"low"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: testRef, Source: "json", Content: tt.content}}
			out := extract(in)
			checkFacts(t, out, tt.want)
		})
	}
}

func TestExtractRecordNotJSON(t *testing.T) {
	in := wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: testRef, Source: "json", Content: "{oops} Minsu works at Coupang."}}
	checkFacts(t, extract(in), []wantFact{{"Minsu", "WORKS_AT", "Coupang", "state", "ref", "", ""}})
}
