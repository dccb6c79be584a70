package runner

import "testing"

// TestRequestParametersRerunTheirUnits: a change to a request parameter (temperature, model)
// re-asks every unit of the stages that call the LLM and nothing that was not asked before;
// ingest and the embeddings (another model) are untouched.
func TestRequestParametersRerunTheirUnits(t *testing.T) {
	chat := []string{"extract", "resolve", "temporal", "summarize", "community"}
	for _, set := range []string{"llm.temperature=0.7", "llm.model=offline-2"} {
		t.Run(set, func(t *testing.T) {
			j := demoJob(t)
			first := mustRun(t, j)
			changed := demoJob(t, set)
			changed.Checkpoint = j.Checkpoint
			second := mustRun(t, changed)
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
	mustRun(t, j)
	again := mustRun(t, j)
	if again.LLM.Calls != 0 {
		t.Errorf("an unchanged job made %d calls", again.LLM.Calls)
	}
}
