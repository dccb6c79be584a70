package pipeline

import (
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/jobs"
)

// validateModes checks what batch mode (llm.mode, embedder.mode) needs: an OpenAI-compatible
// provider with a batch API, and the cache (batch answers reach the calls through it).
func (j *Job) validateModes() error {
	for _, m := range []struct{ key, mode, provider string }{
		{"llm.mode", j.LLM.Mode, j.LLM.Provider}, {"embedder.mode", j.Embedder.Mode, j.Embedder.Provider},
	} {
		if m.mode != jobs.ModeBatch {
			continue
		}
		if m.provider != "openai" {
			return options.Bad(m.key, "batch needs provider openai (a server with the files and batches API), not %q", m.provider)
		}
		if j.LLM.Cache != "on" {
			return options.Bad(m.key, "batch needs llm.cache on (batch answers reach the calls through the cache)")
		}
	}
	return nil
}

// BatchMode reports whether the chat model or the embedder sends batches.
func (j *Job) BatchMode() bool {
	return j.LLM.Mode == jobs.ModeBatch || j.Embedder.Mode == jobs.ModeBatch
}
