package temporal

// DefaultMaxCandidates is Options.MaxCandidates when it is not set.
const DefaultMaxCandidates = 20
