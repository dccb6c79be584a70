package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages"
)

// Shard selects the groups of one shard: a stable hash of group_id modulo Count equals Index.
type Shard struct{ Index, Count int }

// Owns reports whether the shard processes a group (every group when Count ≤ 1).
func (s Shard) Owns(group string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(group))
	return int(h.Sum64()%uint64(s.Count)) == s.Index
}

const ingestBatch = 1000

// ingester streams sources into the store in batches and quarantines bad rows.
type ingester struct {
	store      *checkpoints.Store
	shard      Shard
	now        time.Time
	quarantine *os.File // JSON Lines copy of the rejected rows
	batch      []graph.Episode
	bad        []checkpoints.Quarantined
	rows, nBad int
	replaced   int // rows that replaced an earlier row of this run with the same record key
	log        *slog.Logger
	records    *RecordsReport // what the JSON records held (nil: not tallied)
}

// maxReplacedLogged bounds the warnings about repeated record keys; the report counts them all.
const maxReplacedLogged = 10

// ingest reads every source of the job into the store. It also returns how many rows replaced
// an earlier row of this run with the same record key and other content, and tallies the JSON
// records into recs (when not nil).
func ingest(ctx context.Context, j *Job, store *checkpoints.Store, fsys loaders.FS, shard Shard, clock graph.Clock, prog stages.Progress, log *slog.Logger, stop <-chan struct{}, recs *RecordsReport) (stages.Stats, int, error) {
	start := time.Now()
	qf, err := os.OpenFile(store.Path()+".quarantine.jsonl", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return stages.Stats{}, 0, fmt.Errorf("opening quarantine file: %w", err)
	}
	defer qf.Close()
	in := &ingester{store: store, shard: shard, now: clock.Now(), quarantine: qf, log: log, records: recs}
	prog.Start("ingest", -1)
	defer prog.Done()
	for i, src := range j.Sources {
		spec := loaders.Spec{Path: src.Path, Format: src.Format, Mapping: loaders.Mapping(src.Mapping), Timezone: j.Location(),
			TimeFormat: src.TimeFormat, Source: src.Source, Description: src.Description, GroupPolicy: src.GroupPolicy,
			DefaultGroup: src.DefaultGroup, MaxBodyBytes: src.MaxBodyBytes}
		if spec.Record, err = src.recordSpec(); err != nil {
			return stages.Stats{}, 0, fmt.Errorf("ingesting source %d (%s): %w", i, src.Path, err)
		}
		err := readSource(ctx, fsys, spec, func(r loaders.Result) error {
			prog.Add(1)
			in.tally(i, src, r)
			if err := in.add(ctx, r); err != nil {
				return err
			}
			if in.rows%ingestBatch == 0 && stages.Closed(stop) {
				if err := in.flush(ctx); err != nil {
					return err
				}
				return stages.ErrInterrupted
			}
			return nil
		})
		if err != nil {
			return stages.Stats{}, in.replaced, fmt.Errorf("ingesting source %d (%s): %w", i, src.Path, err)
		}
	}
	if err := in.flush(ctx); err != nil {
		return stages.Stats{}, in.replaced, err
	}
	in.records.warn(log)
	if in.replaced > maxReplacedLogged {
		log.Warn("more rows repeated a record key of this run; the later row replaced the earlier each time",
			"rows", in.replaced, "logged", maxReplacedLogged)
	}
	st := stages.Stats{Units: in.rows, Seconds: time.Since(start).Seconds()}
	if in.rows > 0 && float64(in.nBad)/float64(in.rows) > *j.Limits.MaxErrorRatio {
		return st, in.replaced, fmt.Errorf("ingesting: %d of %d rows quarantined, above limits.max_error_ratio %g (see %s)",
			in.nBad, in.rows, *j.Limits.MaxErrorRatio, qf.Name())
	}
	return st, in.replaced, nil
}

func (in *ingester) add(ctx context.Context, r loaders.Result) error {
	in.rows++
	if r.Bad != nil {
		in.nBad++
		q := checkpoints.Quarantined{File: r.Bad.File, Row: r.Bad.Row, Field: r.Bad.Field, Reason: r.Bad.Reason, Raw: r.Bad.Raw}
		in.bad = append(in.bad, q)
		line, _ := json.Marshal(map[string]any{"file": q.File, "row": q.Row, "field": q.Field, "reason": q.Reason, "raw": q.Raw})
		if _, err := in.quarantine.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("writing quarantine file: %w", err)
		}
		in.log.Warn("quarantined row", "file", q.File, "row", q.Row, "field", q.Field, "reason", q.Reason)
	} else if in.shard.Owns(r.Episode.GroupID) {
		in.batch = append(in.batch, r.Episode)
	}
	if len(in.batch)+len(in.bad) >= ingestBatch {
		return in.flush(ctx)
	}
	return nil
}

func (in *ingester) flush(ctx context.Context) error {
	if len(in.batch) > 0 {
		st, err := in.store.UpsertEpisodes(ctx, in.batch, in.now)
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

// readSource is loaders.Read with a panic in a format decoder turned into an error: parquet-go
// panics on some corrupt footers and page headers, and bad input must not crash the run. A
// panic in emit (this package's own code) is not bad input and is passed on.
func readSource(ctx context.Context, fsys loaders.FS, spec loaders.Spec, emit func(loaders.Result) error) (err error) {
	inEmit := false
	defer func() {
		if r := recover(); r != nil {
			if inEmit {
				panic(r)
			}
			err = fmt.Errorf("reading %s: the input is corrupt (the decoder failed: %v)", spec.Path, r)
		}
	}()
	return loaders.Read(ctx, fsys, spec, func(r loaders.Result) error {
		inEmit = true
		err := emit(r)
		inEmit = false
		return err
	})
}
