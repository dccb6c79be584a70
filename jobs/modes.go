package jobs

import "fmt"

// Request modes (llm.mode, embedder.mode).
const (
	ModeOnline = "online"
	ModeBatch  = "batch"
)

// validateModes checks llm.mode and embedder.mode: batch mode needs an OpenAI-compatible
// provider with a batch API and the cache (batch answers reach the calls through it).
func (j *Job) validateModes() error {
	for _, m := range []struct{ key, mode, provider string }{
		{"llm.mode", j.LLM.Mode, j.LLM.Provider}, {"embedder.mode", j.Embedder.Mode, j.Embedder.Provider},
	} {
		switch m.mode {
		case ModeOnline:
		case ModeBatch:
			if m.provider != "openai" {
				return fmt.Errorf("validating job: %s: batch needs provider openai (a server with the files and batches API), not %q", m.key, m.provider)
			}
			if j.LLM.Cache != "on" {
				return fmt.Errorf("validating job: %s: batch needs llm.cache on (batch answers reach the calls through the cache)", m.key)
			}
		default:
			return fmt.Errorf("validating job: %s: %q is not online or batch", m.key, m.mode)
		}
	}
	return nil
}

// BatchMode reports whether the chat model or the embedder sends batches.
func (j *Job) BatchMode() bool { return j.LLM.Mode == ModeBatch || j.Embedder.Mode == ModeBatch }
