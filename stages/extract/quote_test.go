package extract

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

// TestRepairCitesQuotes: a fact sentence that repeats a previous episode's words and not the
// episode's own is cited to that previous episode; facts the episode itself states, short ones
// and those no previous episode holds stay the episode's.
func TestRepairCitesQuotes(t *testing.T) {
	in := wire.ExtractInput{
		Episode: wire.EpisodeIn{Speaker: "Mel", Content: "Wow, that's so cool! Did you go with friends?"},
		Previous: []wire.EpisodeIn{
			{Speaker: "Caroline", Content: "I lived in York from June 2015 to August 2018."},
			{Speaker: "Caroline", Content: "I went to a LGBTQ support group yesterday and it was so powerful."},
			{Speaker: "Mel", Content: "I went to a LGBTQ support group too."},
		},
	}
	sentence := func(s string) wire.ExtractedFact {
		return wire.ExtractedFact{Source: "Mel", Target: "Caroline", Predicate: "SAID", Fact: s, Kind: wire.KindEvent}
	}
	tests := []struct {
		name string
		fact string
		back int // 0: not quoted
	}{
		{"a copy of the message before the last", "Caroline went to a LGBTQ support group yesterday.", 2},
		{"equal shares: the latest episode", "I went to a LGBTQ support group.", 1},
		{"an older episode, case and punctuation aside", "caroline LIVED in York from June 2015 to August 2018", 3},
		{"the episode's own words", "Mel thinks going with friends is so cool.", 0},
		{"under quoteShare of any previous episode", "Caroline lived in York and loved the city walls.", 0},
		{"too short", "Caroline lived York.", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := repair(Output{Entities: ents("Mel", "Caroline"), Facts: []wire.ExtractedFact{sentence("Mel went out."), sentence(tt.fact)}}, in)
			var want []Quote
			wantRep := Repairs{}
			if tt.back > 0 {
				want, wantRep = []Quote{{Fact: 1, Back: tt.back}}, Repairs{RepairQuotedContext: 1}
			}
			if !reflect.DeepEqual(got.Quoted, want) || !reflect.DeepEqual(rep, wantRep) || len(got.Facts) != 2 {
				t.Errorf("quoted %v, repairs %v, %d facts: want %v, %v, 2 facts", got.Quoted, rep, len(got.Facts), want, wantRep)
			}
		})
	}
	// A sentence the episode repeats from the one before is the episode's own.
	echo := in
	echo.Episode.Content = "I went to a LGBTQ support group too, with friends."
	if got, _ := repair(Output{Entities: ents("Mel", "Caroline"), Facts: []wire.ExtractedFact{sentence("Mel went to a LGBTQ support group too.")}},
		echo); got.Quoted != nil {
		t.Errorf("quoted %v: the episode states the fact itself", got.Quoted)
	}
	// Without context, and in two-call mode, through the facts answer.
	if got, _ := repair(Output{Entities: ents("Mel", "Caroline"), Facts: []wire.ExtractedFact{sentence("I lived in York from June 2015 to August 2018.")}},
		wire.ExtractInput{Episode: in.Episode}); got.Quoted != nil {
		t.Errorf("quoted %v without previous episodes", got.Quoted)
	}
	r := newRepairer(in)
	r.facts(r.entities(ents("Mel", "Caroline")), []wire.ExtractedFact{sentence("I lived in York from June 2015 to August 2018.")})
	if !reflect.DeepEqual(r.quoted, []Quote{{Fact: 0, Back: 3}}) {
		t.Errorf("two-call quoted %v", r.quoted)
	}
}
