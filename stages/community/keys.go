package community

import (
	"fmt"

	"github.com/tkgraph/backfill/internal/options"
)

// Declare declares the stage's job keys (stages.community) on o's fields.
func (o *StageOptions) Declare(s *options.Section) {
	s.Int(&o.MaxIterations, "max_iterations", "label propagation sweeps, both phases together",
		options.Default(DefaultMaxIterations), options.Max(100_000), options.Example("10"))
	s.Int(&o.MinSize, "min_size", "smallest community", options.Default(DefaultStageMinSize), options.Example("3"))
	s.Bool(&o.OnlyValid, "only_valid", "count only facts with no `invalid_at`/`expired_at`")
	s.Int(&o.MaxSummarized, "max_summarized", "members, by number of facts, whose summaries are merged into the community "+
		"summary", options.Default(DefaultStageMaxSummarized), options.Max(10_000), options.Example("4"))
	s.Int(&o.MergeFanIn, "merge_fan_in", "summaries merged by one LLM call, round after round, until one per community is "+
		"left; at least 2 (pairwise, as Graphiti merges)", options.Default(DefaultStageMergeFanIn), options.Max(16), options.Example("2"),
		options.Check(func() error { // a method value would check a copy of *o
			if o.MergeFanIn < 2 {
				return fmt.Errorf("%d summaries per merge: at least 2", o.MergeFanIn)
			}
			return nil
		}))
}
