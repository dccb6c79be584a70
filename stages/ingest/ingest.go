package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Ingest

// QuarantineFile is the JSON Lines copy of the quarantine beside the checkpoint store.
func QuarantineFile(checkpoint string) string { return checkpoint + ".quarantine.jsonl" }

// batchSize is the rows (episodes and rejected rows) written to the store at once.
const batchSize = 1000

// Options of the stage: what to read and how much of it may be bad.
type Options struct {
	// Sources are the loader specs of the job's sources, in order (their Record spec compiled).
	Sources []loaders.Spec
	// FS is where the sources are read.
	FS loaders.FS
	// Shard selects the groups this run ingests.
	Shard Shard
	// MaxErrorRatio fails the stage once more than this share of the rows read are quarantined.
	MaxErrorRatio float64
	// Mirror marks the sources (by index) whose vanished rows are forgotten (sources[].sync:
	// mirror), unless more than MaxVanishedRatio of a source's episodes vanished (mirror.go).
	Mirror           []bool
	MaxVanishedRatio float64
}

// Result is what the stage read besides its Stats, also when it fails part way.
type Result struct {
	// Replaced counts the rows that replaced an earlier row of this run with the same record key
	// and other content.
	Replaced int
	// Records is what the JSON records held.
	Records Records
	// Forgotten counts the rows skipped because a deletion forgot their episode (checkpoints.Forget).
	Forgotten int
	// Vanished counts the episodes of mirror sources forgotten because their rows vanished.
	Vanished int
}

// ingester streams sources into the store in batches and quarantines bad rows.
type ingester struct {
	store       *checkpoints.Store
	shard       Shard
	now         time.Time
	quarantine  *safefile.File // JSON Lines copy of the rejected rows
	batch       []loaders.Result
	bad         []checkpoints.Quarantined
	rows, nBad  int
	badBySource map[int]int     // rows quarantined, by source index
	source      int             // the index of the source being read
	forgotten   int             // rows skipped: their episode was forgotten
	replaced    int             // rows that replaced an earlier row of this run with the same record key
	mapped      map[string]bool // mapped group ids logged this run (at most maxMappedLogged)
	log         *slog.Logger
	records     *Records          // what the JSON records held
	missingWhy  map[string]string // the first reason seen per declaration with missing fields
}

// maxReplacedLogged bounds the warnings about repeated record keys; the report counts them all.
const maxReplacedLogged = 10

// maxMappedLogged bounds the log lines about rewritten group ids; the report counts them all.
const maxMappedLogged = 10

// Run reads every source into the store (env.Store), quarantining the rows it rejects: the
// quarantine table and the JSON Lines file beside the store start empty each run. Record times
// are env.Clock's now.
func Run(ctx context.Context, env stages.Env, o Options) (_ stages.Stats, _ Result, err error) {
	store := env.Store
	res := Result{}
	// The quarantine is the rows this run rejects: the table starts empty, and the file is
	// written anew (internal/safefile) and put in place when the stage ends, however it ends.
	qname := QuarantineFile(store.Path())
	qf, err := safefile.Create(qname)
	if err != nil {
		return stages.Stats{}, res, fmt.Errorf("opening quarantine file: %w", err)
	}
	defer func() {
		if cerr := qf.Commit(); cerr != nil && err == nil {
			err = fmt.Errorf("writing quarantine file: %w", cerr)
		}
	}()
	var st stages.Stats
	// Everything the stage writes is one transaction: a run that a guard refuses, or that stops
	// or fails part way, leaves the store as it was (the quarantine file still lists the rows
	// it rejected).
	err = store.Atomically(ctx, func(ctx context.Context) error {
		var err error
		st, err = ingest(ctx, env, o, qf, &res)
		return err
	})
	return st, res, err
}

// ingest is Run inside the store's transaction.
func ingest(ctx context.Context, env stages.Env, o Options, qf *safefile.File, res *Result) (stages.Stats, error) {
	start := time.Now()
	store, log, prog := env.Store, env.Logger(), env.Progress
	if prog == nil {
		prog = stages.NoProgress{}
	}
	if err := store.ClearQuarantine(ctx); err != nil {
		return stages.Stats{}, err
	}
	in := &ingester{store: store, shard: o.Shard, now: env.Clock.Now(), quarantine: qf, mapped: map[string]bool{}, log: log,
		records: &res.Records, badBySource: map[int]int{}, missingWhy: map[string]string{}}
	if err := in.checkMirror(ctx, o); err != nil {
		return stages.Stats{}, err
	}
	prog.Start(Stage, -1)
	defer prog.Done()
	for i, spec := range o.Sources {
		in.source = i
		before := in.rows
		err := loaders.Read(ctx, o.FS, spec, func(r loaders.Result) error {
			prog.Add(1)
			in.tally(i, spec, r)
			r.Episode.Origin = spec.Path
			if err := in.add(ctx, r); err != nil {
				return err
			}
			if in.rows%batchSize == 0 && stages.Closed(env.Stop) {
				if err := in.flush(ctx); err != nil {
					return err
				}
				return stages.ErrInterrupted
			}
			return nil
		})
		if err != nil {
			res.Replaced, res.Forgotten = in.replaced, in.forgotten
			return stages.Stats{}, fmt.Errorf("ingesting source %d (%s): %w", i, spec.Path, err)
		}
		if in.rows == before { // an empty file reads without error: say so, it is rarely meant
			log.Warn("source has no rows", "source", i, "path", spec.Path)
		}
	}
	if err := in.flush(ctx); err != nil {
		res.Replaced, res.Forgotten = in.replaced, in.forgotten
		return stages.Stats{}, err
	}
	res.Replaced, res.Forgotten = in.replaced, in.forgotten
	if in.forgotten > 0 {
		log.Info("rows skipped: a deletion forgot them (remove them from the source to stop this)", "rows", in.forgotten)
	}
	warnRecords(log, in.records, in.missingWhy)
	if in.replaced > maxReplacedLogged {
		log.Warn("more rows repeated a record key of this run; the later row replaced the earlier each time",
			"rows", in.replaced, "logged", maxReplacedLogged)
	}
	st := stages.Stats{Units: in.rows, Seconds: time.Since(start).Seconds()}
	if env.Observer != nil {
		env.Observer.Units(ctx, Stage, stages.UnitDone, in.rows) // a row is ingest's unit
	}
	if in.rows > 0 && float64(in.nBad)/float64(in.rows) > o.MaxErrorRatio {
		return st, fmt.Errorf("ingesting: %d of %d rows quarantined, above limits.max_error_ratio %g (see %s); nothing was staged",
			in.nBad, in.rows, o.MaxErrorRatio, qf.Name())
	}
	var err error
	res.Vanished, err = in.mirror(ctx, o)
	return st, err
}

func (in *ingester) add(ctx context.Context, r loaders.Result) error {
	in.rows++
	if r.Bad != nil {
		if gone, err := in.store.ForgottenRow(ctx, r.Bad.Raw); err != nil || gone {
			in.forgotten++ // a deletion removed this row from the quarantine: its text stays out
			return err
		}
		if err := in.reject(checkpoints.Quarantined{File: r.Bad.File, Row: r.Bad.Row, Field: r.Bad.Field, Reason: r.Bad.Reason, Raw: r.Bad.Raw}); err != nil {
			return err
		}
	} else if in.shard.Owns(r.Episode.GroupID) {
		in.batch = append(in.batch, r)
		if r.OriginalGroup != "" && len(in.mapped) < maxMappedLogged && !in.mapped[r.Episode.GroupID] {
			in.mapped[r.Episode.GroupID] = true
			in.log.Info("group id outside [A-Za-z0-9_-] rewritten", "group", r.Episode.GroupID, "as_written", r.OriginalGroup)
		}
	}
	if len(in.batch)+len(in.bad) >= batchSize {
		return in.flush(ctx)
	}
	return nil
}

// reject quarantines a row: the store at the next flush, the JSON Lines file and the log now.
func (in *ingester) reject(q checkpoints.Quarantined) error {
	in.nBad++
	in.badBySource[in.source]++
	in.bad = append(in.bad, q)
	line, _ := json.Marshal(map[string]any{"file": q.File, "row": q.Row, "field": q.Field, "reason": q.Reason, "raw": q.Raw})
	if _, err := in.quarantine.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("writing quarantine file %s: %w", in.quarantine.Name(), err)
	}
	in.log.Warn("quarantined row", "file", q.File, "row", q.Row, "field", q.Field, "reason", q.Reason)
	return nil
}

func (in *ingester) flush(ctx context.Context) error {
	if err := in.skipForgotten(ctx); err != nil {
		return err
	}
	if len(in.batch) > 0 {
		eps, err := in.claimGroups(ctx)
		if err != nil {
			return err
		}
		st, err := in.store.UpsertEpisodes(ctx, eps, in.now)
		if err != nil {
			return err
		}
		for _, e := range st.Replaced {
			if in.replaced++; in.replaced <= maxReplacedLogged {
				in.log.Warn("a row repeated the record key of an earlier row of this run with other content; the later row replaced it",
					"group", e.GroupID, "record_key", e.RecordKey, "episode", e.UUID)
			}
		}
		in.batch = in.batch[:0]
	}
	if len(in.bad) > 0 {
		if err := in.store.AddQuarantine(ctx, in.bad); err != nil {
			return err
		}
		in.bad = in.bad[:0]
	}
	return nil
}

// claimGroups records the batch's group ids with the ids the input wrote, and returns the
// batch's episodes except those whose group id another input id already has (an id written in
// the mapped form of another): their rows are quarantined instead of joining that group.
func (in *ingester) claimGroups(ctx context.Context) ([]graph.Episode, error) {
	written := func(r loaders.Result) string { return cmp.Or(r.OriginalGroup, r.Episode.GroupID) }
	claim := map[string]string{}
	for _, r := range in.batch {
		if _, ok := claim[r.Episode.GroupID]; !ok {
			claim[r.Episode.GroupID] = written(r)
		}
	}
	held, err := in.store.ClaimGroups(ctx, claim)
	if err != nil {
		return nil, err
	}
	eps := make([]graph.Episode, 0, len(in.batch))
	for _, r := range in.batch {
		owner, clash := held[r.Episode.GroupID]
		if !clash {
			owner = claim[r.Episode.GroupID]
		}
		if owner == written(r) {
			eps = append(eps, r.Episode)
			continue
		}
		reason := fmt.Sprintf("group id %q is the id of the group written %q; two input ids would share one graph", r.Episode.GroupID, owner)
		if r.OriginalGroup != "" {
			reason = fmt.Sprintf("group id %q maps to %q, the id of the group written %q; two input ids would share one graph",
				r.OriginalGroup, r.Episode.GroupID, owner)
		}
		if err := in.reject(checkpoints.Quarantined{File: r.File, Row: r.Row, Field: r.GroupField, Reason: reason}); err != nil {
			return nil, err
		}
	}
	return eps, nil
}
