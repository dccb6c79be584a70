package offline

import (
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestExtractKorean(t *testing.T) {
	const S = "state"
	tests := []struct {
		name, content string
		want          []wantFact
	}{
		{"일해요", "저는 카카오에서 일해요.", []wantFact{{"지훈", "WORKS_AT", "카카오", S, "ref", "", "지훈은 카카오에서 일한다."}}},
		{"입사", "어제 카카오에 입사했어요.", []wantFact{{"지훈", "WORKS_AT", "카카오", S, "2024-03-10", "", "(2024-03-10부터)"}}},
		{"그만두고 이직", "3월 2일에 카카오를 그만두고 네이버로 이직했어요.", []wantFact{
			{"지훈", "WORKS_AT", "카카오", S, "", "2024-03-02", "지훈은 카카오에서 일했다 (2024-03-02까지)."},
			{"지훈", "WORKS_AT", "네이버", S, "2024-03-02", "", "지훈은 네이버에서 일한다"}}},
		{"일했어요 until", "2023년부터 작년 12월 31일까지 쿠팡에서 일했어요.",
			[]wantFact{{"지훈", "WORKS_AT", "쿠팡", S, "2023-01-01", "2023-12-31", "일했다"}}},
		{"더 이상", "카카오에서 더 이상 일하지 않아요.", []wantFact{{"지훈", "WORKS_AT", "카카오", S, "", "ref", "일했다"}}},
		{"팀 이동", "지난주에 검색팀으로 옮겼어요.", []wantFact{{"지훈", "MEMBER_OF_TEAM", "검색팀", S, "2024-03-04", "", "지훈은 검색팀 소속이다"}}},
		{"팀 소속", "데이터플랫폼팀에 있어요.", []wantFact{{"지훈", "MEMBER_OF_TEAM", "데이터플랫폼팀", S, "ref", "", ""}}},
		{"살아요", "판교에 살아요.", []wantFact{{"지훈", "LIVES_IN", "판교", S, "ref", "", "지훈은 판교에 산다."}}},
		{"이사", "지난달에 부산으로 이사했어요.", []wantFact{{"지훈", "LIVES_IN", "부산", S, "2024-02-01", "", ""}}},
		{"과거 시작", "판교 오기 전에는 2023년부터 분당에 살았어요.",
			[]wantFact{{"지훈", "LIVES_IN", "분당", S, "2023-01-01", "", "지훈은 분당에 살았다 (2023-01-01부터)."}}},
		{"좋아해요", "저는 아메리카노를 제일 좋아해요.", []wantFact{{"지훈", "PREFERS", "아메리카노", S, "ref", "", "지훈은 아메리카노를 좋아한다."}}},
		{"보다 더", "요즘은 아메리카노보다 라떼를 더 좋아해요.",
			[]wantFact{{"지훈", "PREFERS", "라떼", S, "ref", "", "지훈은 아메리카노보다 라떼를 더 좋아한다."}}},
		{"가장 좋아하는", "제가 가장 좋아하는 음료는 녹차예요.",
			[]wantFact{{"지훈", "PREFERS", "녹차", S, "ref", "", "지훈이 가장 좋아하는 음료는 녹차이다."}}},
		{"할 거예요", "보고서는 금요일까지 끝낼 거예요.",
			[]wantFact{{"지훈", "PLANS_TO", "보고서", "plan", "ref", "", "지훈의 계획: 보고서는 금요일까지 끝낼 거예요 (2024-03-15까지)."}}},
		{"끝낼게요", "보고서는 금요일까지 끝낼게요.", []wantFact{{"지훈", "PLANS_TO", "보고서", "plan", "ref", "", "(2024-03-15까지)"}}},
		{"할 예정", "다음 달 말에 판교에서 서울로 이사할 예정이에요.",
			[]wantFact{{"지훈", "PLANS_TO", "서울", "plan", "ref", "", "(2024-04-30)"}}},
		{"그만둘 거예요", "다음 달에 네이버를 그만둘 거예요.", []wantFact{{"지훈", "PLANS_TO", "네이버", "plan", "ref", "", ""}}},
		{"품절까지", "에어팟은 12월 25일까지 품절이에요.",
			[]wantFact{{"에어팟", "IS_OUT_OF_STOCK", "품절", S, "ref", "2024-12-25", "에어팟은 품절이다 (2024-12-25까지)."}}},
		{"씨 subject", "수아 씨는 부산에 살아요.", []wantFact{{"수아", "LIVES_IN", "부산", S, "ref", "", "수아는 부산에 산다."}}},
		{"다녀왔어요", "작년에 제주도에 다녀왔어요.", []wantFact{{"지훈", "VISITED", "제주도", "event", "2023-01-01", "", ""}}},
		{"time word is no product", "요즘은 다 품절이에요.", nil},
		{"question", "카카오에서 일해요?", nil},
		{"negation", "카카오에서 일하지 않아요.", nil},
		{"adjective 좋아요", "사람들이 좋아요. 어제 팀 회식도 했어요.", nil},
		{"chit-chat", "무리하지 마. 건강이 제일이야.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFacts(t, extract(message("지훈", tt.content)), tt.want)
		})
	}
}

func TestExtractKoreanKnownSpeakerSubject(t *testing.T) {
	in := message("지훈", "수아는 작년에 부산으로 이사했어요.")
	in.Previous = []wire.EpisodeIn{{ReferenceTime: testRef, Source: "message", Speaker: "수아", Content: "안녕!"}}
	checkFacts(t, extract(in), []wantFact{{"수아", "LIVES_IN", "부산", "state", "2023-01-01", "", ""}})
}
