package offline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// testRef is the reference time of the extraction tests: Monday 2024-03-11, 12:00 UTC.
const testRef = "2024-03-11T12:00:00Z"

// wantFact is an expected fact. Dates are "" (null), "ref" (the reference time) or a day
// "2024-03-02" (midnight UTC); text, when set, must occur in the fact sentence.
type wantFact struct {
	src, pred, tgt, kind string
	valid, invalid       string
	text                 string
}

func (w wantFact) String() string {
	return fmt.Sprintf("%s -%s-> %s [%s] %q..%q %q", w.src, w.pred, w.tgt, w.kind, w.valid, w.invalid, w.text)
}

func stampWant(s string) string {
	switch s {
	case "":
		return "null"
	case "ref":
		return testRef
	}
	return s + "T00:00:00Z"
}

func stampGot(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// checkFacts compares the facts of out with want, in order.
func checkFacts(t *testing.T, out extraction, want []wantFact) {
	t.Helper()
	var got []string
	for _, f := range out.Facts {
		got = append(got, fmt.Sprintf("%s -%s-> %s [%s] %s..%s %q", f.Source, f.Predicate, f.Target, f.Kind,
			stampGot(f.ValidAt), stampGot(f.InvalidAt), f.Fact))
	}
	if len(out.Facts) != len(want) {
		t.Fatalf("got %d facts, want %d:\n  got:  %s\n  want: %v", len(out.Facts), len(want), strings.Join(got, "\n        "), want)
	}
	for i, w := range want {
		f := out.Facts[i]
		if f.Source != w.src || f.Predicate != w.pred || f.Target != w.tgt || f.Kind != w.kind ||
			stampGot(f.ValidAt) != stampWant(w.valid) || stampGot(f.InvalidAt) != stampWant(w.invalid) ||
			!strings.Contains(f.Fact, w.text) {
			t.Errorf("fact %d:\n  got:  %s\n  want: %v", i, got[i], w)
		}
	}
	checkEndpoints(t, out)
}

// checkEndpoints asserts that every fact names listed entities exactly.
func checkEndpoints(t *testing.T, out extraction) {
	t.Helper()
	names := map[string]bool{}
	for _, e := range out.Entities {
		if names[e.Name] {
			t.Errorf("entity %q listed twice", e.Name)
		}
		names[e.Name] = true
	}
	for _, f := range out.Facts {
		if !names[f.Source] || !names[f.Target] {
			t.Errorf("fact %q names an unlisted entity (%q, %q)", f.Fact, f.Source, f.Target)
		}
	}
}

// message builds the input of a message episode at testRef.
func message(speaker, content string) wire.ExtractInput {
	return wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: testRef, Source: "message", Speaker: speaker, Content: content}}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
