package jobs

// Request modes (llm.mode, embedder.mode).
const (
	ModeOnline = "online"
	ModeBatch  = "batch"
)
