package jobs

import (
	"testing"
)

// TestRequestParametersRerunTheirUnits: a change to a request parameter (temperature, model)
// re-asks every unit of the stages that call the LLM and nothing that was not asked before;
// ingest and the embeddings (another model) are untouched.
func TestRequestParametersRerunTheirUnits(t *testing.T) {
	chat := []string{"extract", "resolve", "temporal", "summarize", "community"}
	for _, set := range []string{"llm.temperature=0.7", "llm.model=offline-2"} {
		t.Run(set, func(t *testing.T) {
			j := demoJob(t)
			first := run(t, j)
			changed := demoJob(t, set)
			changed.Checkpoint = j.Checkpoint
			second := run(t, changed)
			for _, s := range chat {
				if got, want := second.Stages[s].Units, first.Stages[s].Units; got != want {
					t.Errorf("%s re-ran %d units, want all %d", s, got, want)
				}
				got, want := second.LLMByStage[s], first.LLMByStage[s]
				if got.Calls != want.Calls || got.CacheHits != want.CacheHits {
					t.Errorf("%s: %d calls and %d cache hits, want the first run's %d and %d",
						s, got.Calls, got.CacheHits, want.Calls, want.CacheHits)
				}
			}
			if e := second.LLMByStage["embed"]; e.Calls != 0 {
				t.Errorf("embed made %d calls; the embedding model did not change", e.Calls)
			}
			if second.Stages["ingest"].Units != first.Stages["ingest"].Units {
				t.Errorf("ingest: %+v, first run %+v", second.Stages["ingest"], first.Stages["ingest"])
			}
		})
	}
	// Unchanged parameters: nothing is asked again.
	j := demoJob(t, "llm.temperature=0.7")
	run(t, j)
	again := run(t, j)
	if again.LLM.Calls != 0 {
		t.Errorf("an unchanged job made %d calls", again.LLM.Calls)
	}
}

// TestLoadFingerprintPinned: the load unit fingerprint of a group, from the job's sink keys and
// embedder dimensions through loadOptions, is the one the loader has recorded since load-v2 (the
// values were computed by the runner's own load before the stage moved to stages/load). A change
// here reloads every group of every existing checkpoint: bump the loader's version instead.
func TestLoadFingerprintPinned(t *testing.T) {
	for _, c := range []struct {
		kind, uri, db string
		dims          int
		upstream      string
		want          string
	}{
		{"neo4j", "bolt://db:7687", "graph", 1024, "c0ffee", "64ff6d65af7c7f69eaf192dfa0214a97"},
		{"", "", "", 0, "", "b2599178cfe7bc8ec9d1e337f7a40617"},
	} {
		j := &Job{}
		j.Sink.Kind, j.Sink.URI, j.Sink.Database, j.Embedder.Dimensions = c.kind, c.uri, c.db, c.dims
		if got := j.loadOptions(nil, nil).Fingerprint(c.upstream); got != c.want {
			t.Errorf("%+v: load fingerprint %s, want %s", c, got, c.want)
		}
	}
}
