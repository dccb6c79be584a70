package stages

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// graphSource is the store as every sink reads it under a record-time mode: with record_time:
// reference an episode's record time (Episodic.created_at) is its reference time, as if it had
// been ingested then (RecordTimeOf), so exports and loads of two runs compare equal.
type graphSource struct {
	*checkpoints.Store
	reference bool
}

// GraphSource returns the graph of a store for sinks and exports under a record-time mode
// (RecordIngest or RecordReference).
func GraphSource(store *checkpoints.Store, recordTime string) sinks.Source {
	return graphSource{Store: store, reference: recordTime == RecordReference}
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
