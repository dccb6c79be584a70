package temporal

import (
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// said is a fact as a model might extract it from a hand-written message of day ref: its
// sentence, kind and dates (valid, invalid: "" for null).
func said(id, src, tgt, pred, ref, sentence, kind, valid, invalid string) stages.ResolvedFact {
	f := fact(id, src, tgt, pred, ref, valid, invalid, kind)
	f.Fact = sentence
	return f
}

// runRules is the temporal stage without the judge: Normalize, the cardinality rule's settled
// contradictions, Apply.
func runRules(facts []stages.ResolvedFact) map[string]graph.Fact {
	rules := NewRules(DefaultCardinalities(), map[string]string{"globex": "Globex", "leeds": "Leeds", "manchester": "Manchester",
		"kakao-ko": "카카오", "naver-ko": "네이버", "samsung-ko": "삼성전자", "pangyo-ko": "판교", "seoul-ko": "서울",
		"busan-ko": "부산", "porto": "Porto"})
	for i := range facts {
		facts[i] = rules.Ended(rules.Normalize(facts[i]))
	}
	cands := FindCandidates(facts, DefaultMaxCandidates, rules)
	judge := make([]Judgement, len(facts))
	for i, c := range cands {
		judge[i].Contradictions = c.Settled
	}
	out, _ := Apply("g", facts, judge)
	got := map[string]graph.Fact{}
	for _, f := range out {
		got[f.UUID] = f
	}
	return got
}

// TestTextRules checks each temporal rule of issue 44 on hand-written messages, with the dates
// a small model gets wrong: what the sentence says wins.
func TestTextRules(t *testing.T) {
	tests := []struct {
		name  string
		facts []stages.ResolvedFact
		want  map[string]want // facts absent from want must not be in the output (merged)
	}{
		{
			name: "a stated end date is kept over a later message's date",
			facts: []stages.ResolvedFact{
				said("york", "emma", "york", "LIVES_IN", "2024-01-08", "Emma lived in York until August 2018.", "state", "2024-01-08", "2024-01-08"),
			},
			// the end is the month's last day; the model's start (the message's day) is after it: unknown
			want: map[string]want{"york": {"", "2018-08-31", "2024-01-08", 0}},
		},
		{
			name: "a range with full dates keeps its years and closes no current fact it does not overlap",
			facts: []stages.ResolvedFact{
				said("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "Emma lives in Leeds.", "state", "2024-01-08", ""),
				said("york", "emma", "york", "LIVES_IN", "2024-01-09", "Emma lived in York from June 1, 2015 to August 31, 2018.", "state", "2024-01-09", ""),
			},
			want: map[string]want{"leeds": {"2024-01-08", "", "", 0}, "york": {"2015-06-01", "2018-08-31", "2024-01-09", 0}},
		},
		{
			name: "a plan never ends a fact; the move does, and it ends the plan",
			facts: []stages.ResolvedFact{
				said("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "Emma lives in Leeds.", "state", "2024-01-08", ""),
				// the model calls the plan a state of the relation it announces
				said("plan", "emma", "manchester", "LIVES_IN", "2024-04-03", "Emma will move to Manchester.", "state", "2024-04-03", ""),
				said("moved", "emma", "manchester", "LIVES_IN", "2024-05-20", "Emma moved to Manchester on May 18, 2024.", "state", "2024-05-18", ""),
			},
			want: map[string]want{
				"leeds": {"2024-01-08", "2024-05-18", "2024-05-20", 0},
				"plan":  {"2024-04-03", "2024-05-18", "2024-05-20", 0},
				"moved": {"2024-05-18", "", "", 0},
			},
		},
		{
			name: "a plan whose date has passed is no longer current",
			facts: []stages.ResolvedFact{
				said("resign", "alice", "naver", "PLANS_TO_RESIGN_FROM", "2024-04-15",
					"Alice plans to resign at the end of next month (2024-05-31).", "plan", "2024-04-15", ""),
				said("lisbon", "alice", "lisbon", "PLANS_TO_VISIT", "2024-04-15", "Alice plans to travel to Lisbon in June 2024.", "plan", "", ""),
			},
			want: map[string]want{"resign": {"2024-04-15", "2024-06-01", "2024-04-15", 0}, "lisbon": {"2024-04-15", "2024-07-01", "2024-04-15", 0}},
		},
		{
			name: "an event is an instant, never an open state",
			facts: []stages.ResolvedFact{
				said("jeju", "alice", "jeju", "VISITED", "2024-02-12", "Alice visited Jeju on February 2, 2024.", "state", "2024-02-02", ""),
				said("paris", "emma", "paris", "VISITED", "2024-05-20", "Emma visited Paris.", "event", "", ""),
			},
			want: map[string]want{"jeju": {"2024-02-02", "2024-02-02", "2024-02-12", 0}, "paris": {"", "2024-05-20", "2024-05-20", 0}},
		},
		{
			name: "a relation that holds over time is a state though the model called it an event",
			facts: []stages.ResolvedFact{
				said("latte", "minseo", "latte", "PREFERS", "2024-02-20", "민서는 라떼를 더 좋아해요.", "event", "2024-02-20", ""),
				said("york", "emma", "york", "LIVED_IN", "2024-01-08", "Emma lived in York.", "event", "", ""),
			},
			want: map[string]want{"latte": {"2024-02-20", "", "", 0}, "york": {"2024-01-08", "", "", 0}},
		},
		{
			name: "two facts of one relation and object differing only in tense or a date note are one",
			facts: []stages.ResolvedFact{
				said("kakao", "alice", "kakao", "WORKS_AT", "2024-01-08", "Alice works at Kakao.", "state", "2024-01-08", ""),
				said("naver", "alice", "naver", "WORKS_AT", "2024-03-10", "Alice works at Naver (since 2024-03-02).", "state", "2024-03-02", ""),
				said("kakao-past", "alice", "kakao", "WORKED_AT", "2024-03-10", "Alice worked at Kakao (until 2024-03-02).", "state", "", "2024-03-02"),
			},
			want: map[string]want{"kakao": {"2024-01-08", "2024-03-02", "2024-03-10", 2}, "naver": {"2024-03-02", "", "", 0}},
		},
		{
			name: "a start the sentence states is the valid_at the model left out (a date without a year: the last before the message)",
			facts: []stages.ResolvedFact{
				said("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "I live in Leeds.", "state", "", ""),
				said("moved", "emma", "manchester", "LIVES_IN", "2024-05-20", "I moved to Manchester on May 18.", "state", "", ""),
			},
			want: map[string]want{"leeds": {"2024-01-08", "2024-05-18", "2024-05-20", 0}, "moved": {"2024-05-18", "", "", 0}},
		},
		{
			name: "a relative day or a date the model left at the message's time is the start or the event's day",
			facts: []stages.ResolvedFact{
				said("bristol", "mia", "bristol", "LIVES_IN", "2024-02-12", "Mia moved to Bristol yesterday.", "state", "2024-02-12", ""),
				said("paris", "emma", "paris", "VISITED", "2024-05-20", "I visited Paris on March 10.", "event", "2024-05-20", ""),
				said("tom", "emma", "tom", "MET", "2024-05-20", "Emma met Tom three days ago.", "event", "", ""),
				said("naver", "minseo", "naver", "WORKS_AT", "2024-03-11", "3월 2일에 카카오를 그만두고 네이버로 이직했어요.", "state", "2024-03-11", ""),
				said("mug", "mug", "store", "IS_OUT_OF_STOCK", "2024-12-10", "The mug is out of stock until Dec 25.", "state", "2024-12-10", ""),
				said("lamp", "lamp", "store", "IS_OUT_OF_STOCK", "2024-12-10", "램프는 12월 25일까지 품절이에요.", "state", "2024-12-10", ""),
				// a start the model did resolve stays
				said("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "Emma has lived in Leeds since yesterday.", "state", "2023-12-01", ""),
			},
			want: map[string]want{"bristol": {"2024-02-11", "", "", 0}, "paris": {"2024-03-10", "2024-03-10", "2024-05-20", 0},
				"tom": {"2024-05-17", "2024-05-17", "2024-05-20", 0}, "leeds": {"2023-12-01", "", "", 0},
				"naver": {"2024-03-02", "", "", 0},
				// an end without a year said before it comes is in the future, in either language
				"mug": {"2024-12-10", "2024-12-25", "2024-12-10", 0}, "lamp": {"2024-12-10", "2024-12-25", "2024-12-10", 0}},
		},
		{
			name: "a state whose own sentence says it ended is that end, not a start, and closes nothing",
			facts: []stages.ResolvedFact{
				said("leeds", "emma", "leeds", "LIVES_IN", "2024-01-08", "I live in Leeds.", "state", "", ""),
				said("globex", "emma", "globex", "WORKS_AT", "2024-01-08", "I work at Globex now.", "state", "", ""),
				// a small model's fact of the wrong relation, quoting the message
				said("left", "emma", "globex", "LIVES_IN", "2024-04-03", "'I left Globex on March 29 and started at Initech on April 1.'", "state", "", ""),
			},
			want: map[string]want{"leeds": {"2024-01-08", "", "", 0}, "globex": {"2024-01-08", "", "", 0}, "left": {"", "2024-03-29", "2024-04-03", 0}},
		},
		{
			// a small model's two facts of one Korean sentence: the job it left (the ending comes
			// after the name, the date before it) must not close the job it took
			name: "a Korean state whose sentence says it ended is that end, and closes nothing",
			facts: []stages.ResolvedFact{
				said("kakao", "minseo", "kakao-ko", "WORKS_AT", "2024-01-15", "요즘 카카오에서 일해요.", "state", "", ""),
				said("naver", "minseo", "naver-ko", "WORKS_AT", "2024-03-11", "3월 2일에 카카오를 그만두고 네이버로 이직했어요.", "state", "2024-03-02", ""),
				said("quit", "minseo", "kakao-ko", "WORKS_AT", "2024-03-11", "3월 2일에 카카오를 그만두고 네이버로 이직했어요.", "state", "", ""),
				said("pangyo", "minseo", "pangyo-ko", "LIVES_IN", "2024-01-15", "판교에 살고 있어요.", "state", "", ""),
				said("moved", "minseo", "pangyo-ko", "LIVES_IN", "2024-06-03", "판교에서 서울로 이사했어요.", "state", "", ""),
				// a wish to quit is not an end
				said("samsung", "jiwoo", "samsung-ko", "WORKS_AT", "2024-03-11", "삼성전자를 그만두고 싶어요.", "state", "", ""),
			},
			want: map[string]want{
				"kakao":   {"2024-01-15", "2024-03-02", "2024-03-11", 2},
				"naver":   {"2024-03-02", "", "", 0},
				"pangyo":  {"2024-01-15", "2024-06-03", "2024-06-03", 2},
				"samsung": {"2024-03-11", "", "", 0},
			},
		},
		{
			// a small model's fact given the sentence of another message: its dates are another
			// relation's
			name: "a sentence that does not name the fact's object gives it no date",
			facts: []stages.ResolvedFact{
				said("busan", "doyoon", "busan-ko", "LIVES_IN", "2024-02-20", "2023년 12월 31일까지 삼성전자에서 일했어요.", "state", "", ""),
				said("porto", "sofia", "porto", "LIVES_IN", "2024-03-01", "I lived in Lisbon since January 10, 2023.", "state", "", ""),
			},
			want: map[string]want{"busan": {"2024-02-20", "", "", 0}, "porto": {"2024-03-01", "", "", 0}},
		},
		{
			name: "a state whose sentence does not name its object closes nothing by cardinality",
			facts: []stages.ResolvedFact{
				said("globex", "emma", "globex", "WORKS_AT", "2024-01-08", "I work at Globex now.", "state", "", ""),
				// a small model's WORKS_AT, its object taken from another message
				said("team", "emma", "manchester", "WORKS_AT", "2024-04-08", "Since April 8 I'm on the platform team.", "state", "", ""),
			},
			want: map[string]want{"globex": {"2024-01-08", "", "", 0}, "team": {"2024-04-08", "", "", 0}},
		},
		{
			name: "a state the model left without dates starts at its message, so the cardinality rule closes it",
			facts: []stages.ResolvedFact{
				said("globex", "emma", "globex", "WORKS_AT", "2024-01-08", "Emma works at Globex.", "state", "", ""),
				said("initech", "emma", "initech", "WORKS_AT", "2024-04-02", "Emma works at Initech.", "state", "", ""),
			},
			want: map[string]want{"globex": {"2024-01-08", "2024-04-02", "2024-04-02", 0}, "initech": {"2024-04-02", "", "", 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runRules(tt.facts)
			if len(got) != len(tt.want) {
				t.Errorf("%d facts, want %d: %v", len(got), len(tt.want), got)
			}
			for id, w := range tt.want {
				f, ok := got[id]
				if !ok {
					t.Fatalf("fact %s missing: %v", id, got)
				}
				check(t, f, w)
			}
		})
	}
}

func TestTextDates(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // day, cue, month
	}{
		{"Emma lived in York from June 1, 2015 to August 31, 2018.", []string{"2015-06-01 from", "2018-08-31 to"}},
		{"Alice worked at Kakao (until 2024-03-02).", []string{"2024-03-02 until"}},
		{"Emma lived in York until August 2018.", []string{"2018-08-01 until month"}},
		{"Tom moved on the 3rd of May 2021", []string{"2021-05-03 on"}},
		{"지훈은 2019년 7월 1일까지 삼성전자에서 일했다.", []string{"2019-07-01 까지"}},
		{"no date 2024 here, nor 2024-13-01 or Feb 30, 2024", nil},
		// without a year: the last such day at or before the reference time (2024-05-20)
		{"I moved to Manchester on May 18.", []string{"2024-05-18 on"}},
		{"I left Globex on March 29 and started at Initech on 1 April", []string{"2024-03-29 on", "2024-04-01 on"}},
		{"We met on June 3", []string{"2023-06-03 on"}},
		// relative days: the reference day moved (the reference time is 2024-05-20)
		{"Mia moved to Bristol yesterday.", []string{"2024-05-19 "}},
		// Korean without a year, read like "on May 18"; a month alone without a year is not read
		{"3월 2일에 카카오를 그만두고 네이버로 이직했어요.", []string{"2024-03-02 에"}},
		{"6월 1일에 서울로 이사했어요. 7월에 봐요", []string{"2023-06-01 에"}},
		// an end without a year: the nearest to the message, or the first after a start before it
		{"The mug is out of stock until June 3", []string{"2024-06-03 until"}},
		{"I worked at Hooli until December 15", []string{"2023-12-15 until"}},
		{"The store is closed from March 3 to March 7", []string{"2024-03-03 from", "2024-03-07 to"}},
		{"I lived there from November 1 to January 20", []string{"2023-11-01 from", "2024-01-20 to"}},
		{"I have been ill since the day before yesterday and see Tom tomorrow", []string{"2024-05-18 since", "2024-05-21 "}},
		{"We met 3 days ago, and a day ago, not next week", []string{"2024-05-17 ", "2024-05-19 "}},
	} {
		var got []string
		for _, d := range textDates(tc.in, day("2024-05-20"), false) {
			s := d.day.Format("2006-01-02") + " " + d.cue
			if d.month {
				s += " month"
			}
			got = append(got, s)
		}
		if len(got) != len(tc.want) {
			t.Errorf("textDates(%q) = %q, want %q", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("textDates(%q) = %q, want %q", tc.in, got, tc.want)
			}
		}
	}
}
