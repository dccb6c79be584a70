package temporal_test

// scenarios are the cases of the time rules (docs/concepts.md) in English and Korean, run
// through the real pipeline
// (ingest, offline extraction, resolution, judgement, rules) on a few messages each.
func scenarios() []scenario {
	const en, ko = "Jihoon", "지훈"
	return []scenario{
		{
			name: "en/employer change closes Kakao at the Naver start; the past-tense Kakao fact merges into it",
			eps: []ep{{"2026-01-10T09:00:00Z", en, "I work at Kakao."},
				{"2026-03-05T09:00:00Z", en, "I left Kakao on March 2 and joined Naver."}},
			facts: []factWant{{"works at Kakao.", "@0", "2026-03-02", "@1"}, {"works at Naver", "2026-03-02", "", ""}},
			asOf: []asOfWant{{"2026-03-01", "now", []string{"works at Kakao."}, []string{"Naver"}},
				{"2026-03-03", "now", []string{"works at Naver"}, []string{"Kakao"}},
				{"2026-03-03", "2026-03-04", []string{"works at Kakao."}, []string{"Naver"}}},
		},
		{
			name: "ko/employer change closes Kakao at the Naver start; the past-tense Kakao fact merges into it",
			eps: []ep{{"2026-01-10T09:00:00Z", ko, "저는 카카오에서 일해요."},
				{"2026-03-05T09:00:00Z", ko, "3월 2일에 카카오를 그만두고 네이버로 이직했어요."}},
			facts: []factWant{{"카카오에서 일한다.", "@0", "2026-03-02", "@1"}, {"네이버에서 일한다", "2026-03-02", "", ""}},
			asOf: []asOfWant{{"2026-03-01", "now", []string{"카카오에서 일한다."}, []string{"네이버"}},
				{"2026-03-03", "now", []string{"네이버에서 일한다"}, []string{"카카오"}}},
		},
		{
			name: "en/an earlier home heard later does not close the current one",
			eps: []ep{{"2026-02-01T09:00:00Z", en, "I moved to Pangyo last month."},
				{"2026-03-01T09:00:00Z", en, "Before Pangyo, I lived in Bundang since 2023."}},
			facts: []factWant{{"Pangyo", "2026-01-01", "", ""}, {"Bundang", "2023-01-01", "2026-01-01", "@1"}},
			asOf: []asOfWant{{"2025-06-01", "now", []string{"Bundang"}, []string{"Pangyo"}},
				{"2026-02-15", "now", []string{"Pangyo"}, []string{"Bundang"}}},
		},
		{
			name: "ko/an earlier home heard later does not close the current one",
			eps: []ep{{"2026-02-01T09:00:00Z", ko, "지난달에 판교로 이사했어요."},
				{"2026-03-01T09:00:00Z", ko, "판교 오기 전에는 2023년부터 분당에 살았어요."}},
			facts: []factWant{{"판교", "2026-01-01", "", ""}, {"분당", "2023-01-01", "2026-01-01", "@1"}},
			asOf:  []asOfWant{{"2026-02-15", "now", []string{"판교"}, []string{"분당"}}},
		},
		{
			name: "en/a college job, contradicted by cardinality but not overlapping, closes nothing",
			eps: []ep{{"2026-01-10T09:00:00Z", en, "I've been working at Kakao since 2024."},
				{"2026-02-01T09:00:00Z", en, "I worked at Starbucks from 2015 until 2017."}},
			facts: []factWant{{"Kakao", "2024-01-01", "", ""}, {"Starbucks", "2015-01-01", "2017-01-01", "@1"}},
			asOf:  []asOfWant{{"2026-01-01", "now", []string{"Kakao"}, []string{"Starbucks"}}},
		},
		{
			name: "ko/a college job, contradicted by cardinality but not overlapping, closes nothing",
			eps: []ep{{"2026-01-10T09:00:00Z", ko, "2024년부터 카카오에서 일하고 있어요."},
				{"2026-02-01T09:00:00Z", ko, "2015년부터 2017년까지 스타벅스에서 일했어요."}},
			facts: []factWant{{"카카오", "2024-01-01", "", ""}, {"스타벅스", "2015-01-01", "2017-01-01", "@1"}},
		},
		{
			name:  "en/out of stock until Dec 25 has a future end, expired when recorded",
			eps:   []ep{{"2026-12-01T10:00:00Z", en, "The Aurora Lamp is out of stock until Dec 25."}},
			facts: []factWant{{"out of stock", "@0", "2026-12-25", "@0"}},
			asOf: []asOfWant{{"2026-12-10", "2026-12-01T10:00:00Z", []string{"out of stock"}, nil},
				{"2026-12-26", "now", nil, []string{"out of stock"}}},
		},
		{
			name: "en/out of stock under record_time ingest expires at the ingest time", recordTime: "ingest",
			eps:   []ep{{"2026-12-01T10:00:00Z", en, "The Aurora Lamp is out of stock until Dec 25."}},
			facts: []factWant{{"out of stock", "@0", "2026-12-25", "now"}},
		},
		{
			name:  "ko/out of stock until Dec 25 has a future end, expired when recorded",
			eps:   []ep{{"2026-12-01T10:00:00Z", ko, "에어팟은 12월 25일까지 품절이에요."}},
			facts: []factWant{{"품절", "@0", "2026-12-25", "@0"}},
		},
		{
			name: "en/a resignation plan is valid from the day it was said, closes nothing and ends at its date", literalToo: true,
			eps: []ep{{"2026-03-01T09:00:00Z", en, "I work at Naver."},
				{"2026-03-10T09:00:00Z", en, "The work at Naver is hectic. I will resign at the end of next month."}},
			facts: []factWant{{"plans to resign", "@1", "2026-05-01", "@1"}, {"works at Naver", "@0", "", ""}},
			asOf: []asOfWant{{"2026-03-09", "now", []string{"works at Naver"}, []string{"resign"}},
				{"2026-04-30", "now", []string{"works at Naver", "plans to resign"}, nil},
				{"2026-06-01", "now", []string{"works at Naver"}, []string{"resign"}}},
		},
		{
			name: "ko/a resignation plan is valid from the day it was said, closes nothing and ends at its date", literalToo: true,
			eps: []ep{{"2026-03-01T09:00:00Z", ko, "네이버에서 일해요."},
				{"2026-03-10T09:00:00Z", ko, "다음 달 말에 네이버에서 퇴사할 거예요."}},
			facts: []factWant{{"퇴사할 거예요", "@1", "2026-05-01", "@1"}, {"네이버에서 일한다", "@0", "", ""}},
		},
		{
			name: "en/a deadline ends at its date", literalToo: true,
			eps:   []ep{{"2026-03-10T09:00:00Z", en, "I will finish the report by Friday."}},
			facts: []factWant{{"report", "@0", "2026-03-14", "@0"}},
			asOf:  []asOfWant{{"2026-03-13", "now", []string{"report"}, nil}, {"2026-04-01", "now", nil, []string{"report"}}},
		},
		{
			name: "ko/a deadline ends at its date", literalToo: true,
			eps:   []ep{{"2026-03-10T09:00:00Z", ko, "보고서는 금요일까지 끝낼 거예요."}},
			facts: []factWant{{"보고서", "@0", "2026-03-14", "@0"}},
		},
		{
			name: "en/a poisoned late start cannot close the true fact before it was said", literalToo: true,
			eps: []ep{{"2026-01-10T09:00:00Z", en, "I've been working at Kakao since 2024."},
				{"2026-02-01T09:00:00Z", en, "I've been working at Evilcorp since 2027."}},
			facts: []factWant{{"Kakao", "2024-01-01", "@1", "@1"}, {"Evilcorp", "@1", "", ""}},
			asOf:  []asOfWant{{"2026-02-01T08:59:59Z", "now", []string{"Kakao"}, []string{"Evilcorp"}}},
		},
		{
			name: "ko/a poisoned late start cannot close the true fact before it was said", literalToo: true,
			eps: []ep{{"2026-01-10T09:00:00Z", ko, "2024년부터 카카오에서 일하고 있어요."},
				{"2026-02-01T09:00:00Z", ko, "2027년에 악덕회사에 입사했어요."}},
			facts: []factWant{{"카카오", "2024-01-01", "@1", "@1"}, {"악덕회사", "@1", "", ""}},
			asOf:  []asOfWant{{"2026-02-01T08:59:59Z", "now", []string{"카카오"}, []string{"악덕회사"}}},
		},
		{
			name: "en/a preference over the old one closes it (a judged comparison naming it)",
			eps: []ep{{"2026-01-10T09:00:00Z", en, "My favorite drink is green tea."},
				{"2026-03-10T09:00:00Z", en, "These days I prefer coffee over green tea."}},
			facts: []factWant{{"favorite drink is green tea", "@0", "@1", "@1"}, {"coffee", "@1", "", ""}},
		},
		{
			name: "ko/a preference over the old one closes it (a judged comparison naming it)",
			eps: []ep{{"2026-01-10T09:00:00Z", ko, "아메리카노를 제일 좋아해요."},
				{"2026-03-10T09:00:00Z", ko, "아메리카노보다 라떼를 더 좋아해요."}},
			facts: []factWant{{"아메리카노를", "@0", "@1", "@1"}, {"라떼", "@1", "", ""}},
		},
		{
			name: "en/a new favourite of another category leaves the old one open (many, no negation)",
			eps: []ep{{"2026-01-10T09:00:00Z", en, "My favorite drink is green tea."},
				{"2026-03-10T09:00:00Z", en, "My favorite city is Lisbon."}},
			facts: []factWant{{"green tea", "@0", "", ""}, {"Lisbon", "@1", "", ""}},
		},
	}
}
