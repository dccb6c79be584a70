package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/timeline"
)

// Kinds of the files the output record lists.
const (
	outputExport   = "export"   // a directory export wrote (the kind of records without one)
	outputTimeline = "timeline" // a page timeline wrote
	outputReport   = "report"   // a report file: run --report, plan --json, eval and diff --json/--markdown, forget --report
)

// outputsFile is the record, beside the checkpoint store (pipeline.Job.SideFiles), of the files the
// job's commands wrote from the store, so that a forgetting (forget, or a run that forgets rows
// gone from a mirror source) leaves none of them holding what it removed. Commands that only
// read the store write it.
func outputsFile(side string) string { return side + ".exports.json" }

// outputRecord is one file or directory a command wrote from the store.
type outputRecord struct {
	Kind       string `json:"kind,omitempty"` // outputExport when empty
	Dir        string `json:"dir,omitempty"`  // an export: absolute
	File       string `json:"file,omitempty"` // a page or a report: absolute
	Format     string `json:"format,omitempty"`
	Dialect    string `json:"dialect,omitempty"`
	Analytical bool   `json:"analytical,omitempty"`
	// Entity, Group and KnownAt are a timeline page's arguments (KnownAt nil: drawn as of now).
	Entity  string     `json:"entity,omitempty"`
	Group   string     `json:"group,omitempty"`
	KnownAt *time.Time `json:"known_at,omitempty"`
	Command string     `json:"command,omitempty"` // a report: the command that wrote it
	// Deletion is the last completed deletion the store knew of when the file was written
	// (checkpoints.Store.LastPurged): a later one may have removed what it holds.
	Deletion  int64     `json:"deletion"`
	WrittenAt time.Time `json:"written_at"`
}

func (r outputRecord) kind() string {
	if r.Kind == "" {
		return outputExport
	}
	return r.Kind
}

// path is the file or directory the record names.
func (r outputRecord) path() string {
	if r.kind() == outputExport {
		return r.Dir
	}
	return r.File
}

// sideFiles is where the files beside the job's store live (pipeline.Job.SideFiles), or the
// store's own path when that cannot be told.
func sideFiles(j *pipeline.Job, store *checkpoints.Store) string {
	side, err := j.SideFiles(j.Checkpoint)
	if err != nil {
		return store.Path()
	}
	return side
}

// readOutputs reads the output record (none when the file is absent).
func readOutputs(side string) ([]outputRecord, error) {
	b, err := os.ReadFile(outputsFile(side))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the output record: %w", err)
	}
	var recs []outputRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("reading the output record %s: %w", outputsFile(side), err)
	}
	return recs, nil
}

// writeOutputs replaces the output record (internal/safefile).
func writeOutputs(side string, recs []outputRecord) error {
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the output record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(side), 0o700); err != nil {
		return fmt.Errorf("writing the output record: %w", err)
	}
	if err := safefile.WriteFile(outputsFile(side), append(b, '\n')); err != nil {
		return fmt.Errorf("writing the output record: %w", err)
	}
	return nil
}

// recordOutput adds (or replaces, by path) a file the job's commands wrote from the store, its
// path made absolute; r.Deletion is the store's last completed deletion the file knows of (0
// for a report: every forgetting checks it).
func recordOutput(side string, r outputRecord) error {
	p, err := filepath.Abs(r.path())
	if err != nil {
		return err
	}
	if r.kind() == outputExport {
		r.Dir = p
	} else {
		r.File = p
	}
	r.WrittenAt = time.Now().UTC()
	recs, err := readOutputs(side)
	if err != nil {
		return err
	}
	recs = slices.DeleteFunc(recs, func(x outputRecord) bool { return x.path() == p })
	return writeOutputs(side, append(recs, r))
}

// recordFile records a page or report written from the job's store (kept at the job's
// checkpoint), warning (and going on) when it cannot: forget would then not know the file.
func recordFile(j *pipeline.Job, r outputRecord) {
	if j == nil || r.File == "" || r.File == "-" {
		return
	}
	side, err := j.SideFiles(j.Checkpoint)
	if err == nil {
		err = recordOutput(side, r)
	}
	if err != nil {
		slog.Warn("file written but not recorded beside the store: forget will not know it (remove it by hand after forgetting)",
			"file", r.File, "error", err)
	}
}

// refreshOutputs makes every recorded file written before the store's last completed deletion
// hold none of what it removed: an export is written again from the store (in place, file by
// file, when its directory also holds files export did not write, which are kept as they
// are), a timeline page is drawn again (removed when its entity is gone), and a report has
// every text of texts replaced by "[forgotten]". A recorded file that no longer exists leaves
// the record. One file that fails does not stop the others: the errors, each naming its file,
// come back joined. What it did is printed on out.
func refreshOutputs(ctx context.Context, out io.Writer, j *pipeline.Job, store *checkpoints.Store, side string, texts []string) error {
	recs, err := readOutputs(side)
	if err != nil || len(recs) == 0 {
		return err
	}
	last, err := store.LastPurged(ctx)
	if err != nil {
		return err
	}
	var errs []error
	kept := recs[:0]
	for _, r := range recs {
		if r.Deletion >= last {
			kept = append(kept, r)
			continue
		}
		if _, err := os.Lstat(r.path()); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		what, err := refreshOutput(ctx, j, store, r, texts)
		if err != nil {
			errs = append(errs, fmt.Errorf("rewriting %s %s without the forgotten episodes (remove it by hand): %w", r.kind(), r.path(), err))
			kept = append(kept, r)
			continue
		}
		fmt.Fprintf(out, "%s\t%s: %s\n", r.kind(), termtext.Value(r.path()), what)
		if what != "removed" {
			if r.kind() != outputReport { // a report is checked by every forgetting
				r.Deletion = last
			}
			kept = append(kept, r)
		}
	}
	if err := writeOutputs(side, kept); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// refreshOutput rewrites one recorded file (refreshOutputs) and says what it did.
func refreshOutput(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, r outputRecord, texts []string) (string, error) {
	switch r.kind() {
	case outputExport:
		o := exportOptions{format: r.Format, cy: cypherlFlags{dialect: r.Dialect, analytical: r.Analytical}}
		foreign, err := o.rewriteExport(ctx, j, store, r.Dir)
		if len(foreign) > 0 {
			return fmt.Sprintf("rewritten (its files only; kept as they are, not written by export: %s)", strings.Join(foreign, ", ")), err
		}
		return "rewritten", err
	case outputTimeline:
		knownAt := time.Now().UTC()
		if r.KnownAt != nil {
			knownAt = *r.KnownAt
		}
		page, n, err := timelinePage(ctx, store, r.Group, r.Entity, knownAt)
		if err != nil || n == 0 { // the entity went with the forgotten episodes
			return "removed", os.Remove(r.File)
		}
		return "rewritten", writeAtomic(r.File, func(w io.Writer) error { return timeline.Write(w, page) })
	default:
		if texts == nil {
			return "left as it is (a run that forgot rows gone from a mirror source does not know their texts; forget --match TEXT checks it)", nil
		}
		changed, err := redactFile(r.File, texts)
		if !changed {
			return "checked (holds none of it)", err
		}
		return "redacted", err
	}
}

// minRedacted is the shortest text a report has replaced: shorter ones (two letters of a name)
// would also hit unrelated words.
const minRedacted = 3

// redactFile replaces, in the file at path, every text of texts (as written, and as JSON
// writes it inside a string) by "[forgotten]", atomically; it reports whether anything changed.
func redactFile(path string, texts []string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var pairs []string
	for _, t := range texts {
		if utf8.RuneCountInString(t) < minRedacted {
			continue
		}
		pairs = append(pairs, t, "[forgotten]")
		if q, _ := json.Marshal(t); string(q[1:len(q)-1]) != t {
			pairs = append(pairs, string(q[1:len(q)-1]), "[forgotten]")
		}
	}
	if len(pairs) == 0 {
		return false, nil
	}
	red := []byte(strings.NewReplacer(pairs...).Replace(string(b)))
	if bytes.Equal(red, b) {
		return false, nil
	}
	return true, safefile.WriteFile(path, red)
}

// writeExport writes the job's graph from store into dir (replaceDir) as o asks and records it;
// a *recordError says it was written but not recorded.
func (o *exportOptions) writeExport(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, dir string) error {
	seen, err := store.LastPurged(ctx)
	if err != nil {
		return err
	}
	if err := replaceDir(dir, o.writer(ctx, j, store)); err != nil {
		return err
	}
	err = recordOutput(sideFiles(j, store), outputRecord{Kind: outputExport, Dir: dir, Format: o.format,
		Dialect: o.cy.dialect, Analytical: o.cy.analytical, Deletion: seen})
	if err != nil {
		return &recordError{err: err}
	}
	return nil
}

// rewriteExport writes the export at dir again from store: as a whole (replaceDir) when dir
// holds only export files, else file by file, leaving the files export did not write, which
// it returns.
func (o *exportOptions) rewriteExport(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, dir string) ([]string, error) {
	write := o.writer(ctx, j, store)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var foreign []string
	for _, e := range ents {
		if !e.Type().IsRegular() || !exportFile(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) == 0 {
		return nil, replaceDir(dir, write)
	}
	return foreign, replaceFiles(dir, write)
}

// writer is the function that writes o's export of the job's graph into a directory.
func (o *exportOptions) writer(ctx context.Context, j *pipeline.Job, store *checkpoints.Store) func(dir string) error {
	if o.format == "cypherl" {
		return func(dir string) error { return o.cy.export(ctx, j, stages.GraphSource(store, j.RecordTime), dir) }
	}
	return func(dir string) error { return parquet.Export(ctx, stages.GraphSource(store, j.RecordTime), dir) }
}

// recordError is the error of an export written but not recorded (the store's directory is
// read-only): forgetting cannot rewrite it.
type recordError struct{ err error }

func (e *recordError) Error() string {
	return fmt.Sprintf("%v: forget will not rewrite this export (remove it by hand after forgetting)", e.err)
}

func (e *recordError) Unwrap() error { return e.err }

// refreshAfterRun rewrites the files recorded beside the job's store after a run that completed
// a forgetting (refreshOutputs; the texts of the episodes are gone by then, so reports are
// left), reading the store as the run left it.
func refreshAfterRun(ctx context.Context, j *pipeline.Job) error {
	side, err := j.SideFiles(j.Checkpoint)
	if err != nil {
		return err
	}
	if recs, err := readOutputs(side); err != nil || len(recs) == 0 {
		return err
	}
	store, err := pipeline.OpenCheckpoint(ctx, j, j.Checkpoint, pipeline.CheckpointOptions{})
	if err != nil {
		return err
	}
	defer store.Close()
	return refreshOutputs(ctx, prefixed{os.Stderr, "backfill: "}, j, store, side, nil)
}

// prefixed writes each line with a prefix.
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > 0 {
			if _, err := io.WriteString(p.w, p.prefix+string(line)); err != nil {
				return 0, err
			}
		}
	}
	return len(b), nil
}
