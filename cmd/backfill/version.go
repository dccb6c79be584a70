package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set by `make build` with -ldflags "-X main.buildDate=…" (a plain `go build` leaves them empty):
// when the binary was built (RFC 3339, UTC), and the git description, commit, commit time and
// work-tree state, used when Go stamped no VCS information (-buildvcs=false, a git worktree).
var buildDate, gitVersion, gitCommit, gitTime, gitModified string

// buildInfo says which backfill this is.
type buildInfo struct {
	Version  string // the module version Go stamped (a tag, or a pseudo-version of the commit)
	Commit   string // vcs.revision
	Time     string // vcs.time: the commit's time
	Modified bool   // built from a work tree with changes not committed
	Built    string // buildDate
	Go       string
}

func version() buildInfo {
	b := buildInfo{Version: "(devel)", Built: buildDate, Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if ok && info.Main.Version != "" {
		b.Version = info.Main.Version
	}
	if b.Version == "(devel)" && gitVersion != "" {
		b.Version = gitVersion
	}
	b.Commit, b.Time, b.Modified = gitCommit, gitTime, gitModified == "true"
	if !ok {
		return b
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func (b buildInfo) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "backfill %s\n", b.Version)
	switch {
	case b.Commit == "":
		s.WriteString("commit   unknown (built outside a git work tree)\n")
	case b.Modified:
		fmt.Fprintf(&s, "commit   %s (%s) with changes not committed\n", b.Commit, b.Time)
	default:
		fmt.Fprintf(&s, "commit   %s (%s)\n", b.Commit, b.Time)
	}
	fmt.Fprintf(&s, "built    %s with %s", cmp.Or(b.Built, "at an unknown date (make build records it)"), b.Go)
	return s.String()
}

func newVersionCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date (as --version does)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(c.out, version())
			return err
		},
	}
}
