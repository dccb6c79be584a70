package loaders

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
)

// sharedLoCoMo is the real LoCoMo file ($LOCOMO, else ../shared/datasets/locomo/locomo10.json
// beside the repository), or the test is skipped saying where it was looked for.
func sharedLoCoMo(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return testenv.LoCoMo(t, root)
}

// TestLoCoMoShared imports the real file: 5,882 turns in 10 conversations, every time parsed.
func TestLoCoMoShared(t *testing.T) {
	path := sharedLoCoMo(t)
	var eps []graph.Episode
	if err := ImportLoCoMo(context.Background(), path, func(e graph.Episode) error {
		eps = append(eps, e)
		return nil
	}); err != nil {
		t.Fatalf("ImportLoCoMo: %v", err)
	}
	if len(eps) != 5882 {
		t.Fatalf("got %d episodes, want 5882", len(eps))
	}
	groups := map[string]int{}
	ids := map[string]bool{}
	for i, e := range eps {
		groups[e.GroupID]++
		ids[e.UUID] = true
		if e.ReferenceTime.Year() < 2022 || e.ReferenceTime.Year() > 2024 || e.Source != graph.SourceMessage ||
			e.Speaker == "" || e.Content == "" || e.Seq != int64(i+1) {
			t.Fatalf("episode %d looks wrong: %+v", i, e)
		}
	}
	if len(groups) != 10 || groups["conv-26"] != 419 {
		t.Errorf("groups = %v", groups)
	}
	if len(ids) != len(eps) {
		t.Errorf("%d distinct ids for %d episodes", len(ids), len(eps))
	}
	first := eps[0]
	if first.GroupID != "conv-26" || first.RecordKey != "conv-26/D1:1" || first.Speaker != "Caroline" ||
		!first.ReferenceTime.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Errorf("first episode = %+v", first)
	}
	// The import → Parquet → Read path gives back identical episodes.
	var buf bytes.Buffer
	w := NewEpisodeWriter(&buf)
	for _, e := range eps {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "locomo.parquet")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := readAll(t, Spec{Path: p})
	if len(rs) != len(eps) {
		t.Fatalf("read back %d of %d", len(rs), len(eps))
	}
	for i, r := range rs {
		if r.Bad != nil || r.Episode != eps[i] {
			t.Fatalf("episode %d after the round trip:\n got %+v %+v\nwant %+v", i, r.Episode, r.Bad, eps[i])
		}
	}
}

// TestLoCoMoSmall pins the turn rules on a synthetic sample: numeric session order, images,
// date keys without sessions, timezone, group mapping and bad turns.
func TestLoCoMoSmall(t *testing.T) {
	p := writeFile(t, t.TempDir(), "small.json", `[
 {"sample_id": "s 1", "qa": [], "conversation": {
   "speaker_a": "Ann", "speaker_b": "Ben",
   "session_10_date_time": "9:00 am on 3 January, 2024",
   "session_10": [{"speaker": "Ben", "dia_id": "D10:1", "text": "Later session."}],
   "session_2_date_time": "1:56 pm on 8 May, 2023",
   "session_2": [
     {"speaker": "Ann", "dia_id": "D2:1", "text": "Look!", "blip_caption": "a photo of a cat", "img_url": ["x"]},
     {"speaker": "Ben", "dia_id": "D2:2", "text": ""},
     {"speaker": "Ann", "text": "no dia id"}
   ],
   "session_30_date_time": "10:00 am on 1 June, 2024",
   "session_3": [{"speaker": "Ann", "dia_id": "D3:1", "text": "no date for me"}]
 }}
]`)
	rs := readAll(t, Spec{Path: p, Format: FormatLoCoMo, Timezone: mustLoc(t, "Asia/Seoul"), Description: "fixture"})
	type want struct {
		key, body, field string
		ref              time.Time
	}
	g := MapGroupID("s 1")
	wants := []want{
		{key: "s 1/D2:1", body: "Look! [shares an image: a photo of a cat]", ref: time.Date(2023, 5, 8, 4, 56, 0, 0, time.UTC)},
		{field: "conversation.session_2[1].text"},
		{key: graph.ContentKey(g, time.Date(2023, 5, 8, 4, 56, 0, 0, time.UTC), "Ann", "no dia id"), body: "no dia id", ref: time.Date(2023, 5, 8, 4, 56, 0, 0, time.UTC)},
		{field: "conversation.session_3_date_time"},
		{key: "s 1/D10:1", body: "Later session.", ref: time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)},
	}
	if len(rs) != len(wants) {
		t.Fatalf("got %d results, want %d: %+v", len(rs), len(wants), rs)
	}
	for i, w := range wants {
		r := rs[i]
		if w.field != "" {
			if r.Bad == nil || r.Bad.Field != w.field || r.Bad.Row != 1 {
				t.Errorf("result %d: want bad field %q, got %+v", i, w.field, r.Bad)
			}
			continue
		}
		e := r.Episode
		if r.Bad != nil || e.RecordKey != w.key || e.Content != w.body || !e.ReferenceTime.Equal(w.ref) ||
			e.GroupID != g || r.OriginalGroup != "s 1" || e.SourceDescription != "fixture" {
			t.Errorf("result %d = %+v %+v; want %+v", i, e, r.Bad, w)
		}
	}
}
