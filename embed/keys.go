package embed

import "github.com/tkgraph/backfill/internal/options"

// DefaultDimensions is embedder.dimensions when the job does not set it.
const DefaultDimensions = 256

// Settings are the embedder's job keys (embedder.*: the model and its requests); the endpoint
// and mode keys of the section are declared by the code that reads them.
type Settings struct {
	Model      string
	Dimensions int
	BatchSize  int
}

// Declare declares the embedder's job keys on s's fields.
func (s *Settings) Declare(sec *options.Section) {
	sec.String(&s.Model, "model", "the model (`openai` needs it; provider `offline` names its own)")
	sec.Int(&s.Dimensions, "dimensions", "vector size", options.Default(DefaultDimensions), options.Max(8192))
	sec.Int(&s.BatchSize, "batch_size", "texts per request", options.Default(DefaultBatchSize), options.Max(2048))
}
