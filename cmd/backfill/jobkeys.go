package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/jobs/pipeline"
)

// jobKeysFile is the generated key reference, by its path from the repository root.
const jobKeysFile = "docs/reference/job-keys.md"

// jobKeysIntro opens the job keys' help topic and reference.
const jobKeysIntro = `Every key of a job file, as the package that reads it declares it: what its value is (type or
words, maximum, default, what an empty value means) and what it does. A number must be finite
and not negative; an empty value given by --set KEY= or by a ${VAR} set but empty is an error
unless the key says what empty means. --set KEY=VALUE overrides a key by its dotted path (a
number indexes a list: sources.0.path).`

// newJobKeysCmd is the help topic of the job keys (backfill help job-keys), rendered from the
// declarations (pipeline.Keys), as docs/reference/job-keys.md is.
func newJobKeysCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "job-keys",
		Short: "Every key of a job file: its value, default and meaning",
		Long:  jobKeysIntro + "\n\n" + options.Text(pipeline.Keys().Rows(), 100),
	}
}

// jobKeysReference is docs/reference/job-keys.md: the keys by section, one table each (the
// job's own keys first), with links to the guides made relative to it.
func jobKeysReference() string {
	var b strings.Builder
	b.WriteString("# Job keys\n\n<!-- generated from the keys' declarations by `make cli-docs`; do not edit -->\n\n")
	b.WriteString(strings.ReplaceAll(jobKeysIntro, "\n", " ") + " The rules of the job file (YAML, `${VAR}`, relative " +
		"paths) are in [Writing a job](../jobs.md#the-job-file); `backfill help job-keys` prints this list.\n")
	var group []options.Row
	flush := func() {
		if len(group) == 0 {
			return
		}
		title := group[0].Top
		if !strings.ContainsAny(group[0].Key, ".[") {
			title = "The job"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s", title, options.Markdown(group, jobKeysFile))
		group = nil
	}
	for _, r := range pipeline.Keys().Rows() {
		own := !strings.ContainsAny(r.Key, ".[")
		if len(group) > 0 && (r.Top != group[0].Top) && !(own && !strings.ContainsAny(group[0].Key, ".[")) {
			flush()
		}
		group = append(group, r)
	}
	flush()
	return b.String()
}
