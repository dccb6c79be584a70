package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/stages"
)

// exportsFile is the record, beside the checkpoint store, of the directories `export` wrote from
// it, so that forgetting can rewrite them (export reads the store read-only and never writes it).
func exportsFile(checkpoint string) string { return checkpoint + ".exports.json" }

// exportRecord is one directory an export wrote: how, and the last completed deletion it knew of.
type exportRecord struct {
	Dir        string    `json:"dir"` // absolute
	Format     string    `json:"format"`
	Dialect    string    `json:"dialect,omitempty"`
	Analytical bool      `json:"analytical,omitempty"`
	Deletion   int64     `json:"deletion"` // checkpoints.Store.LastPurged when written
	WrittenAt  time.Time `json:"written_at"`
}

// readExports reads the export record of a store (none when the file is absent).
func readExports(checkpoint string) ([]exportRecord, error) {
	b, err := os.ReadFile(exportsFile(checkpoint))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the export record: %w", err)
	}
	var recs []exportRecord
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("reading the export record %s: %w", exportsFile(checkpoint), err)
	}
	return recs, nil
}

// writeExports replaces the export record (internal/safefile).
func writeExports(checkpoint string, recs []exportRecord) error {
	path := exportsFile(checkpoint)
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the export record: %w", err)
	}
	if err := safefile.WriteFile(path, append(b, '\n')); err != nil {
		return fmt.Errorf("writing the export record: %w", err)
	}
	return nil
}

// recordExport adds (or replaces, by directory) an export in the store's export record.
func recordExport(checkpoint string, r exportRecord) error {
	recs, err := readExports(checkpoint)
	if err != nil {
		return err
	}
	out := recs[:0]
	for _, x := range recs {
		if x.Dir != r.Dir {
			out = append(out, x)
		}
	}
	return writeExports(checkpoint, append(out, r))
}

// recordError is the error of an export written but not recorded (the store's directory is
// read-only): forgetting cannot rewrite it.
type recordError struct{ err error }

func (e *recordError) Error() string {
	return fmt.Sprintf("%v: forget will not rewrite this export (remove it by hand after forgetting)", e.err)
}

func (e *recordError) Unwrap() error { return e.err }

// writeExport writes the job's graph from store into dir (replaceDir) as o asks and records it;
// a *recordError says it was written but not recorded.
func (o *exportOptions) writeExport(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, dir string) error {
	var write func(dir string) error
	switch o.format {
	case "parquet":
		write = func(dir string) error { return parquet.Export(ctx, stages.GraphSource(store, j.RecordTime), dir) }
	case "cypherl":
		write = func(dir string) error { return o.cy.export(ctx, j, stages.GraphSource(store, j.RecordTime), dir) }
	default:
		return fmt.Errorf("unknown export format %q (want parquet or cypherl)", o.format)
	}
	seen, err := store.LastPurged(ctx)
	if err != nil {
		return err
	}
	if err := replaceDir(dir, write); err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = recordExport(store.Path(), exportRecord{Dir: abs, Format: o.format, Dialect: o.cy.dialect, Analytical: o.cy.analytical,
			Deletion: seen, WrittenAt: time.Now().UTC()})
	}
	if err != nil {
		return &recordError{err: err}
	}
	return nil
}

// refreshExports rewrites every recorded export of the job's store written before its last
// completed deletion, so no export keeps what a deletion removed; a recorded directory that no
// longer exists leaves the record. It returns the directories rewritten.
func refreshExports(ctx context.Context, j *pipeline.Job) ([]string, error) {
	recs, err := readExports(j.Checkpoint)
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	store, err := checkpoints.OpenReadOnly(ctx, j.Checkpoint)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	last, err := store.LastPurged(ctx)
	if err != nil {
		return nil, err
	}
	var done, gone []string
	for _, r := range recs {
		if r.Deletion >= last {
			continue
		}
		if _, err := os.Stat(r.Dir); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, r.Dir)
			continue
		}
		o := exportOptions{format: r.Format, cy: cypherlFlags{dialect: r.Dialect, analytical: r.Analytical}}
		if err := o.writeExport(ctx, j, store, r.Dir); err != nil {
			return done, fmt.Errorf("rewriting the export %s without the forgotten episodes (or remove it): %w", r.Dir, err)
		}
		done = append(done, r.Dir)
	}
	if len(gone) == 0 {
		return done, nil
	}
	if recs, err = readExports(j.Checkpoint); err != nil {
		return done, err
	}
	kept := recs[:0]
	for _, r := range recs {
		if !slices.Contains(gone, r.Dir) {
			kept = append(kept, r)
		}
	}
	return done, writeExports(j.Checkpoint, kept)
}
