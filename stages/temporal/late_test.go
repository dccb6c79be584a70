package temporal_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// lateCase is a history A, B, C where B arrives late: it changes the intervals A and C gave.
type lateCase struct {
	lang       string
	a, b, c    ep
	kakao      string // substring of the open-employment fact of A
	closedByC  string // Kakao's end after A and C only
	closedByB  string // Kakao's end once B is known
	coupang    string // substring of B's fact
	coupangEnd string
}

func lateCases() []lateCase {
	return []lateCase{
		{lang: "en", a: ep{"2026-01-10T09:00:00Z", "Jihoon", "I work at Kakao."},
			b:     ep{"2026-02-01T09:00:00Z", "Jihoon", "I joined Coupang on January 20."},
			c:     ep{"2026-03-05T09:00:00Z", "Jihoon", "I left Kakao on March 2 and joined Naver."},
			kakao: "works at Kakao.", closedByC: "2026-03-02", closedByB: "2026-01-20", coupang: "Coupang", coupangEnd: "2026-03-02"},
		{lang: "ko", a: ep{"2026-01-10T09:00:00Z", "지훈", "저는 카카오에서 일해요."},
			b:     ep{"2026-02-01T09:00:00Z", "지훈", "1월 20일에 쿠팡에 입사했어요."},
			c:     ep{"2026-03-05T09:00:00Z", "지훈", "3월 2일에 카카오를 그만두고 네이버로 이직했어요."},
			kakao: "카카오에서 일한다.", closedByC: "2026-03-02", closedByB: "2026-01-20", coupang: "쿠팡", coupangEnd: "2026-03-02"},
	}
}

// TestLateEpisodeReference: under record_time: reference, running A,C and then again with B
// (reference time between them) gives the same facts, intervals and version log as one run
// over A,B,C.
func TestLateEpisodeReference(t *testing.T) {
	for _, lc := range lateCases() {
		t.Run(lc.lang, func(t *testing.T) {
			inc := jobSpec{dir: t.TempDir()}
			writeInputs(t, inc.dir, []ep{lc.a, lc.c})
			j := loadJob(t, inc)
			runJob(t, j, now)
			first := readState(t, j)
			checkEnd(t, first, lc.kakao, lc.closedByC)
			writeInputs(t, inc.dir, []ep{lc.a, lc.c, lc.b}) // B appended to the input, out of order
			runJob(t, j, now.Add(24*time.Hour))
			got := readState(t, j)
			checkEnd(t, got, lc.kakao, lc.closedByB)
			checkEnd(t, got, lc.coupang, lc.coupangEnd)

			one := jobSpec{dir: t.TempDir()}
			writeInputs(t, one.dir, []ep{lc.a, lc.b, lc.c})
			jo := loadJob(t, one)
			runJob(t, jo, now)
			want := readState(t, jo)
			if g, w := dumpFacts(got.facts), dumpFacts(want.facts); g != w {
				t.Errorf("facts differ:\nincremental:\n%s\nordered:\n%s", g, w)
			}
			if g, w := dumpVersions(got.versions), dumpVersions(want.versions); g != w {
				t.Errorf("version logs differ:\nincremental:\n%s\nordered:\n%s", g, w)
			}
		})
	}
}

// TestLateEpisodeIngest: under record_time: ingest the late episode gives the ordered run's
// intervals, and the version log still answers what the first run knew.
func TestLateEpisodeIngest(t *testing.T) {
	t1, t2 := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for _, lc := range lateCases() {
		t.Run(lc.lang, func(t *testing.T) {
			inc := jobSpec{dir: t.TempDir(), recordTime: "ingest"}
			writeInputs(t, inc.dir, []ep{lc.a, lc.c})
			j := loadJob(t, inc)
			runJob(t, j, t1)
			first := readState(t, j)
			writeInputs(t, inc.dir, []ep{lc.a, lc.c, lc.b})
			runJob(t, j, t2)
			got := readState(t, j)

			one := jobSpec{dir: t.TempDir(), recordTime: "ingest"}
			writeInputs(t, one.dir, []ep{lc.a, lc.b, lc.c})
			jo := loadJob(t, one)
			runJob(t, jo, t2)
			if g, w := dumpIntervals(got.facts), dumpIntervals(readState(t, jo).facts); g != w {
				t.Errorf("intervals differ:\nincremental:\n%s\nordered:\n%s", g, w)
			}
			known := map[string]graph.FactVersion{}
			for _, v := range got.versions {
				if !v.RecordTime.After(t1) {
					known[v.FactUUID] = v
				}
			}
			if len(known) != len(first.facts) {
				t.Fatalf("log knows %d facts at the first run, the first run had %d", len(known), len(first.facts))
			}
			for _, f := range first.facts {
				v, ok := known[f.UUID]
				if !ok || !graph.SameTime(v.ValidAt, f.ValidAt) || !graph.SameTime(v.InvalidAt, f.InvalidAt) || !graph.SameTime(v.ExpiredAt, f.ExpiredAt) {
					t.Errorf("as known at the first run, %q = %+v; the first run stored %+v", f.Fact, v, f)
				}
			}
		})
	}
}

// checkEnd asserts the invalid_at of the one fact containing text.
func checkEnd(t *testing.T, s state, text, end string) {
	t.Helper()
	f := find(t, s.facts, text)
	want, _ := time.Parse("2006-01-02", end)
	if !graph.SameTime(f.InvalidAt, &want) {
		t.Errorf("%q invalid_at = %v, want %s", f.Fact, f.InvalidAt, end)
	}
}

func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func dumpIntervals(fs []graph.Fact) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %q [%s, %s)\n", f.UUID, f.Fact, stamp(f.ValidAt), stamp(f.InvalidAt))
	}
	return b.String()
}

func dumpFacts(fs []graph.Fact) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s->%s %q [%s, %s) created %s expired %s ref %s episodes %v\n", f.UUID, f.Name, f.SourceUUID,
			f.TargetUUID, f.Fact, stamp(f.ValidAt), stamp(f.InvalidAt), stamp(&f.CreatedAt), stamp(f.ExpiredAt),
			stamp(&f.ReferenceTime), f.Episodes)
	}
	return b.String()
}

func dumpVersions(vs []graph.FactVersion) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%s #%d at %s [%s, %s) expired %s by %s %s\n", v.FactUUID, v.Seq, stamp(&v.RecordTime), stamp(v.ValidAt),
			stamp(v.InvalidAt), stamp(v.ExpiredAt), v.EpisodeUUID, v.Reason)
	}
	return b.String()
}
