package load

import "github.com/tkgraph/backfill/internal/options"

// DeclareReload declares sink.reload, which the stage reads (Options.Reload), on *p; the
// loader declares the other sink keys (graphdb.Settings).
func DeclareReload(s *options.Section, p *bool) {
	s.Bool(p, "reload", "write every group, not only the groups that changed since the last load")
}
