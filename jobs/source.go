package jobs

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// recordTimeSource is the store as sinks read it under the job's record-time mode: with
// record_time: reference an episode's record time (Episodic.created_at) is its reference time,
// as if it had been ingested then, so exports of two runs compare equal.
type recordTimeSource struct {
	*checkpoints.Store
	reference bool
}

// GraphSource returns the graph of a store for sinks and exports, under the job's record-time mode.
func GraphSource(j *Job, store *checkpoints.Store) sinks.Source {
	return recordTimeSource{Store: store, reference: j.RecordTime == "reference"}
}

// Episodes streams the episodes with their record time set by the record-time mode.
func (s recordTimeSource) Episodes(ctx context.Context, fn func(graph.Episode) error) error {
	return s.Store.Episodes(ctx, func(e graph.Episode) error {
		if s.reference {
			e.IngestedAt = e.ReferenceTime
		}
		return fn(e)
	})
}
