package loaders

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tkgraph/backfill/graph"
)

// BadRowsError reports the records an importer skipped; the good ones were all emitted.
type BadRowsError struct {
	Count int   // how many records were skipped
	First []Bad // the first few of them
}

func (e *BadRowsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad records", e.Count)
	if len(e.First) > 0 {
		f := e.First[0]
		if f.Field == "" {
			fmt.Fprintf(&b, " (first: %s element %d: %s)", f.File, f.Row, f.Reason)
		} else {
			fmt.Fprintf(&b, " (first: %s element %d field %q: %s)", f.File, f.Row, f.Field, f.Reason)
		}
	}
	return b.String()
}

// ImportLoCoMo reads a LoCoMo file (e.g. locomo10.json) from the local disk and emits one episode
// per dialogue turn, in file order; session times are read as UTC. Turns that cannot become
// episodes are skipped and reported at the end as a *BadRowsError.
func ImportLoCoMo(ctx context.Context, path string, emit func(graph.Episode) error) error {
	return importFile(ctx, path, FormatLoCoMo, emit)
}

// ImportLongMemEval reads a LongMemEval file (e.g. longmemeval_s.json) from the local disk and
// emits one episode per haystack turn, one group per question, in file order; session dates are
// read as UTC. Turns that cannot become episodes are skipped and reported at the end as a
// *BadRowsError.
func ImportLongMemEval(ctx context.Context, path string, emit func(graph.Episode) error) error {
	return importFile(ctx, path, FormatLongMemEval, emit)
}

func importFile(ctx context.Context, path, format string, emit func(graph.Episode) error) error {
	spec, err := Spec{Path: path, Format: format}.normalize()
	if err != nil {
		return err
	}
	var bads BadRowsError
	fr := &fileReader{name: path, b: builder{spec: spec}, names: spec.Mapping,
		emit: func(r Result) error {
			if r.Bad == nil {
				return emit(r.Episode)
			}
			if bads.Count++; len(bads.First) < 10 {
				bads.First = append(bads.First, *r.Bad)
			}
			return nil
		}}
	if err := fr.read(ctx, LocalFS{}); err != nil {
		return err // it names the file
	}
	if bads.Count > 0 {
		return fmt.Errorf("importing %s: %w", path, &bads)
	}
	return nil
}

// EachElement streams the elements of a top-level JSON array (a benchmark file), one decoded
// element in memory at a time; idx is 1-based. `backfill eval` reads benchmark questions with it.
func EachElement(ctx context.Context, r io.Reader, f func(idx int64, raw json.RawMessage) error) error {
	return eachElement(ctx, r, f)
}

// eachElement is EachElement.
func eachElement(ctx context.Context, r io.Reader, f func(idx int64, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("reading JSON array: %w", err)
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("reading JSON array: the file does not start with '['")
	}
	for idx := int64(1); dec.More(); idx++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("reading JSON array element %d: %w", idx, err)
		}
		if err := f(idx, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("reading the end of the JSON array: %w", err)
	}
	return nil
}

// turnEmitter numbers the good episodes of a benchmark file (Seq = fileIndex<<32 | n, so a
// written and re-read episode file reproduces it) and reports bad ones at their array element.
type turnEmitter struct {
	fr *fileReader
	n  int64
}

// turn builds and emits one turn; elem is the 1-based array element it belongs to.
func (t *turnEmitter) turn(elem int64, names *Mapping, v *rowValues, orig string, raw []byte) error {
	res := t.fr.b.build(t.fr.pos(t.n+1), names, v)
	if res.Bad != nil {
		res.Bad.Row, res.Bad.Raw = elem, rawText(raw)
		return t.fr.emit(res)
	}
	t.n++
	res.OriginalGroup, res.Row = orig, elem
	return t.fr.emit(res)
}

// element reports a whole array element as bad.
func (t *turnEmitter) element(elem int64, field, reason string, raw []byte) error {
	return t.fr.emit(Result{Bad: &Bad{File: t.fr.name, Row: elem, Field: field, Reason: reason, Raw: rawText(raw)}})
}
