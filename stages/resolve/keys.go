package resolve

import "github.com/tkgraph/backfill/internal/options"

// Declare declares the stage's job keys (stages.resolve) on o's fields.
func (o *Options) Declare(s *options.Section) {
	s.Float(&o.MinHashThreshold, "minhash_threshold", "3-gram Jaccard that merges two names (≥ 1 disables the pass)",
		options.Default(DefaultSimilarity), options.Max(1), options.Example("0.8"))
	s.Float(&o.EmbeddingThreshold, "embedding_threshold", "name-embedding cosine that merges two names (≥ 1 disables "+
		"merging by embedding)", options.Default(DefaultEmbeddingThreshold), options.Max(1), options.Example("0.95"))
	s.Float(&o.GreyThreshold, "grey_threshold", "name-embedding cosine from which a pair of names goes to the LLM (≥ 1 "+
		"disables)", options.Default(DefaultGreyThreshold), options.Max(1), options.Example("0.7"))
	s.Int(&o.BatchSize, "batch_size", "pairs per `resolve_entities`/`dedupe_facts` call", options.Default(DefaultBatchSize),
		options.Max(1000), options.Example("5"))
	s.Int(&o.MaxPairs, "max_pairs", "pairs adjudicated per group and kind; the rest stay apart", options.Default(DefaultMaxPairs),
		options.Max(10_000_000), options.Example("10"))
	s.Switch(&o.NoLLM, "llm", "`on` or `off` (no adjudication: ambiguous pairs stay apart)", "on", "off", options.Default("on"))
}
