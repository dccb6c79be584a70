package evaluation

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// WriteContext writes facts in the context format of the Zep paper, the one `backfill query`
// prints and `eval --qa` gives the answering model: "<FACTS>", one
// "  - FACT (Date range: FROM - TO)" line per fact with "date unknown" and "present" for absent
// ends as Graphiti writes them, "</FACTS>".
func WriteContext(w io.Writer, facts []graph.Fact) error {
	if _, err := fmt.Fprintln(w, "<FACTS>"); err != nil {
		return err
	}
	for _, f := range facts {
		if _, err := fmt.Fprintln(w, ContextLine(f)); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, "</FACTS>")
	return err
}

// ContextLine is one fact's line of WriteContext, without the newline.
func ContextLine(f graph.Fact) string {
	return fmt.Sprintf("  - %s (Date range: %s - %s)", f.Fact, dateOr(f.ValidAt, "date unknown"), dateOr(f.InvalidAt, "present"))
}

// contextText is WriteContext into a string.
func contextText(facts []graph.Fact) string {
	var b strings.Builder
	_ = WriteContext(&b, facts) // a strings.Builder does not fail
	return strings.TrimRight(b.String(), "\n")
}

func dateOr(t *time.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}
