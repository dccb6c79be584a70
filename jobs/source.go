package jobs

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// graphSource is the store as every sink reads it under the job's record-time mode: with
// record_time: reference an episode's record time (Episodic.created_at) is its reference time,
// as if it had been ingested then, so exports and loads of two runs compare equal.
type graphSource struct {
	*checkpoints.Store
	reference bool
}

// GraphSource returns the graph of a store for sinks and exports, under the job's record-time mode.
func GraphSource(j *Job, store *checkpoints.Store) sinks.Source {
	return graphSource{Store: store, reference: j.RecordTime == "reference"}
}

// GroupEpisodes returns a group's episodes with their record time set by the record-time mode.
func (s graphSource) GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error) {
	eps, err := s.Store.GroupEpisodes(ctx, group)
	if s.reference {
		for i := range eps {
			eps[i].IngestedAt = eps[i].ReferenceTime
		}
	}
	return eps, err
}
