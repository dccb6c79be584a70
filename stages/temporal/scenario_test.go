package temporal_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// now is the wall clock of every scenario run (record time under record_time: ingest).
var now = time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC)

// factWant identifies one stored fact by a substring of its sentence and gives its interval.
// Times are "" (absent), "@N" (episode N's reference time), "now" (the run's clock) or a day.
type factWant struct{ text, valid, invalid, expired string }

// asOfWant queries the facts true at valid as known at known ("now" or a time as above):
// every sentence in must is among them (by substring), none in not.
type asOfWant struct {
	valid, known string
	must, not    []string
}

type scenario struct {
	name       string
	eps        []ep
	literal    bool   // extraction takes claimed future dates at face value (see testLLM)
	literalToo bool   // run a second time with literal extraction, wanting the same result
	recordTime string // reference (default) or ingest
	facts      []factWant
	asOf       []asOfWant
}

// at resolves a time token of a scenario.
func (sc scenario) at(t *testing.T, s string) *time.Time {
	t.Helper()
	switch {
	case s == "":
		return nil
	case s == "now":
		return &now
	case strings.HasPrefix(s, "@"):
		i, _ := strconv.Atoi(s[1:])
		v, err := time.Parse(time.RFC3339, sc.eps[i].ref)
		if err != nil {
			t.Fatal(err)
		}
		v = v.UTC()
		return &v
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if v, err := time.Parse(layout, s); err == nil {
			return &v
		}
	}
	t.Fatalf("bad time %q", s)
	return nil
}

func TestScenarios(t *testing.T) {
	var all []scenario
	for _, sc := range scenarios() {
		all = append(all, sc)
		if sc.literalToo {
			sc.name, sc.literal = sc.name+" (literal extraction)", true
			all = append(all, sc)
		}
	}
	for _, sc := range all {
		t.Run(sc.name, func(t *testing.T) {
			spec := jobSpec{dir: t.TempDir(), recordTime: sc.recordTime}
			var model *testLLM
			if sc.literal {
				model, spec.baseURL = newTestLLM(t, nil, sc.literal)
			}
			writeInputs(t, spec.dir, sc.eps)
			j := loadJob(t, spec)
			runJob(t, j, now)
			st := readState(t, j)
			if sc.literal && model.rewritten.Load() == 0 {
				t.Fatalf("the literal extraction changed no date")
			}
			for _, w := range sc.facts {
				f := find(t, st.facts, w.text)
				for _, c := range []struct {
					name      string
					got, want *time.Time
				}{{"valid_at", f.ValidAt, sc.at(t, w.valid)}, {"invalid_at", f.InvalidAt, sc.at(t, w.invalid)},
					{"expired_at", f.ExpiredAt, sc.at(t, w.expired)}} {
					if !graph.SameTime(c.got, c.want) {
						t.Errorf("%q %s = %v, want %v", f.Fact, c.name, c.got, c.want)
					}
				}
			}
			for _, q := range sc.asOf {
				got := graph.AsOf(st.facts, st.versions, *sc.at(t, q.valid), *sc.at(t, q.known))
				var texts []string
				for _, f := range got {
					texts = append(texts, f.Fact)
				}
				all := strings.Join(texts, " | ")
				for _, m := range q.must {
					if !strings.Contains(all, m) {
						t.Errorf("valid %s known %s: %q missing from %q", q.valid, q.known, m, all)
					}
				}
				for _, m := range q.not {
					if strings.Contains(all, m) {
						t.Errorf("valid %s known %s: %q present in %q", q.valid, q.known, m, all)
					}
				}
			}
		})
	}
}

// find returns the only fact whose sentence contains text.
func find(t *testing.T, facts []graph.Fact, text string) graph.Fact {
	t.Helper()
	var hits []graph.Fact
	for _, f := range facts {
		if strings.Contains(f.Fact, text) {
			hits = append(hits, f)
		}
	}
	if len(hits) != 1 {
		var all []string
		for _, f := range facts {
			all = append(all, f.Fact)
		}
		t.Fatalf("%d facts contain %q; facts: %q", len(hits), text, all)
	}
	return hits[0]
}
