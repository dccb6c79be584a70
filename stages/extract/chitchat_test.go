package extract

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

func TestIsChitchat(t *testing.T) {
	names := []string{"Caroline", "Melanie"}
	tests := []struct {
		content string
		want    bool
	}{
		{"Thanks, Melanie! Your kind words mean a lot.", true},
		{"Wow, that's cool, Caroline! What happened that was so awesome? Did you hear any inspiring stories?", true},
		{"Hey Mel! Good to see you! How have you been?", true},             // "Mel" starts "Melanie"
		{"What made you pick it?!", true},                                  // "?!" ends a question
		{"감사합니다! ㅋㅋㅋ", true},                                               // Korean courtesy
		{"Bye!\nTake care.", true},                                         // line breaks cut sentences
		{"I went to a LGBTQ support group yesterday.", false},              // a statement
		{"Wow! Did you see that band at Lollapalooza?", false},             // a name in a question
		{"Cool! Wanna see my moves next Fri?", false},                      // the speaker in a question
		{"I had an accident near some roses - can you believe it?", false}, // the speaker in a question
		{"Thanks! See you at the event!", false},                           // "event": not courtesy
		{"Wow, amazing view! Is it 2 hours away?", false},                  // a digit
		{"어디에 살았어요?", false},                                               // a Korean question
		{"와 대박! 민수랑 부산 갔어요.", false},                                       // a Korean statement
		{"", false},   // nothing
		{";)", false}, // no words
		{"Sounds great! [shares an image: a photo of a dog on a beach]", false}, // an image caption
	}
	for _, tt := range tests {
		if got := IsChitchat(tt.content, names); got != tt.want {
			t.Errorf("IsChitchat(%q) = %v, want %v", tt.content, got, tt.want)
		}
	}
}

// A chit-chat message asks nothing and gives its speaker; with AskChitchat it is asked. The
// counts say which units asked.
func TestChitchatNotAsked(t *testing.T) {
	msg := func(i int, speaker, content string) graph.Episode {
		ep := snapshot(string(rune('a'+i)), "", i, content, graph.Record{})
		ep.Record, ep.Source, ep.Speaker = nil, graph.SourceMessage, speaker
		return ep
	}
	eps := []graph.Episode{msg(1, "Ann", "I moved to Busan with Bob."), msg(2, "Bob", "Wow, Ann! How do you like it?"),
		msg(3, "Ann", "Thanks, Bob!")}
	for _, ask := range []bool{false, true} {
		f := &fakeLLM{}
		env := recordEnv(t, f, eps...)
		counts := stages.NewTally()
		st, err := Run(context.Background(), env, Options{AskChitchat: ask, Counts: counts})
		if err != nil || st.Units != 3 {
			t.Fatalf("Run = %+v, %v", st, err)
		}
		want := map[string]int{Asked: 1, SkipChitchat: 2}
		if ask {
			want = map[string]int{Asked: 3}
		}
		if got := counts.Stage(Stage); !reflect.DeepEqual(got, want) {
			t.Errorf("ask %v: counts %v, want %v", ask, got, want)
		}
		if got := len(f.take()); got != want[Asked] {
			t.Errorf("ask %v: %d calls, want %d", ask, got, want[Asked])
		}
		out := outputsByKey(t, env)["c"]
		if !ask && (len(out.Facts) != 0 || !reflect.DeepEqual(out.Entities, []wire.EntityMention{{Name: "Bob", Type: "Entity", Attributes: []wire.AttributeValue{}}})) {
			t.Errorf("chit-chat output %+v, want its speaker only", out)
		}
	}
	if got := speakerOnly(wire.ExtractInput{Episode: wire.EpisodeIn{Speaker: "Bob"}, ExcludedTypes: []string{"entity"}}); len(got.Entities) != 0 {
		t.Errorf("an excluded Entity type kept the speaker: %+v", got)
	}
}

// Previous episodes: newest first within Context and ContextTokens, the latest cut when it alone
// is too long, without the reference time and source they share with the episode.
func TestInputContext(t *testing.T) {
	ep := func(day int, speaker, content string) graph.Episode {
		return graph.Episode{Source: graph.SourceMessage, Speaker: speaker, Content: content,
			ReferenceTime: time.Date(2024, 5, day, 10, 0, 0, 0, time.UTC)}
	}
	eps := []graph.Episode{ep(1, "A", "one two three four five six seven eight"), ep(2, "B", "nine ten eleven twelve"),
		ep(2, "A", "thirteen fourteen"), ep(2, "B", "the episode")}
	speakers := func(in wire.ExtractInput) []string {
		var out []string
		for _, p := range in.Previous {
			out = append(out, p.Speaker+": "+p.Content)
		}
		return out
	}
	tests := []struct {
		name          string
		context, toks int
		want          []string
	}{
		{"all three", 4, 0, []string{"A: one two three four five six seven eight", "B: nine ten eleven twelve", "A: thirteen fourteen"}},
		{"at most two", 2, 0, []string{"B: nine ten eleven twelve", "A: thirteen fourteen"}},
		{"a budget of two episodes", 4, 12, []string{"B: nine ten eleven twelve", "A: thirteen fourteen"}},
		{"the latest cut", 4, 3, []string{"A: …fourteen"}},
		{"cut inside a word", 4, 2, []string{"A: …"}},
		{"none", 0, 0, nil},
	}
	for _, tt := range tests {
		in := Input(eps, 3, Options{Context: tt.context, ContextTokens: tt.toks})
		if got := speakers(in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: previous %q, want %q", tt.name, got, tt.want)
		}
	}
	in := Input(eps, 3, Options{Context: 4})
	if p := in.Previous; p[0].ReferenceTime == "" || p[1].ReferenceTime != "" || p[0].Source != "" || in.Episode.Source != "message" {
		t.Errorf("shared fields not left out: %+v", p)
	}
}
