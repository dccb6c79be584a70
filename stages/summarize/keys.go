package summarize

import "github.com/tkgraph/backfill/internal/options"

// Declare declares the stage's job keys (stages.summarize) on o's fields.
func (o *Options) Declare(s *options.Section) {
	s.Int(&o.ShortChars, "short_chars", "facts joined up to this length are the summary",
		options.Default(DefaultShortChars), options.Example("100"))
	s.Int(&o.BatchSize, "batch_size", "entities per call", options.Default(DefaultBatchSize), options.Max(1000),
		options.Example("2"))
}
