package temporal

import "github.com/tkgraph/backfill/internal/options"

// DefaultMaxCandidates is Options.MaxCandidates when it is not set.
const DefaultMaxCandidates = 20

// Declare declares the stage's job keys (stages.temporal) on o's fields.
func (o *Options) Declare(s *options.Section) {
	s.Int(&o.MaxCandidates, "max_candidates", "most recent candidates shown per judgement",
		options.Default(DefaultMaxCandidates), options.Max(1000), options.Example("5"))
}
