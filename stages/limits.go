package stages

import (
	"fmt"

	"github.com/tkgraph/backfill/internal/options"
)

// DefaultMaxFailedRatio is limits.max_failed_ratio (Env.MaxFailedRatio) when the job does not
// set it.
const DefaultMaxFailedRatio = 0.5

// DeclareMaxFailedRatio declares limits.max_failed_ratio, which stops a stage whose units fail
// (Env.MaxFailedRatio), on *p.
func DeclareMaxFailedRatio(s *options.Section, p **float64) {
	s.OptFloat(p, "max_failed_ratio", fmt.Sprintf("share of a stage's units whose LLM answers stayed bad above which the "+
		"run stops with exit 1, judged once %d units of the stage have run (`0`: the first failed unit stops the run)",
		MinFailedSample),
		options.Default(DefaultMaxFailedRatio), options.Max(1))
}
