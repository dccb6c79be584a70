package main

import (
	"bytes"
	"io"

	"github.com/tkgraph/backfill/internal/termtext"
)

// printText writes what write writes to out with the control characters of the data in it
// escaped (internal/termtext: newlines and tabs, the table's own, stay): the tables of run, plan
// and status hold job names, paths, group ids and provider answers.
func printText(out io.Writer, write func(w io.Writer)) {
	var b bytes.Buffer
	write(&b)
	_, _ = io.WriteString(out, termtext.Message(b.String()))
}
