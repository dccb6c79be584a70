package snapshots

import (
	"context"
	"iter"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// storeSnapshot reads a checkpoint store group by group.
type storeSnapshot struct {
	store *checkpoints.Store
	owned bool // Close closes the store
}

// OpenStore reads a checkpoint store; Close closes it when owned is true.
func OpenStore(store *checkpoints.Store, owned bool) Snapshot {
	return &storeSnapshot{store: store, owned: owned}
}

func (s *storeSnapshot) HasVersions() bool { return true }

func (s *storeSnapshot) Kind() string { return KindCheckpoint }

func (s *storeSnapshot) Describe() string { return KindCheckpoint + " " + s.store.Path() }

func (s *storeSnapshot) Runs(ctx context.Context) ([]checkpoints.Run, error) {
	return s.store.Runs(ctx)
}

func (s *storeSnapshot) Close() error {
	if s.owned {
		return s.store.Close()
	}
	return nil
}

func (s *storeSnapshot) Groups(ctx context.Context, want func(string) bool) iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		ids, err := s.store.Groups(ctx)
		if err != nil {
			yield(nil, err)
			return
		}
		for _, id := range ids {
			if want != nil && !want(id) {
				continue
			}
			g, err := s.group(ctx, id)
			if !yield(g, err) || err != nil {
				return
			}
		}
	}
}

// group reads one group through the store's per-group read API.
func (s *storeSnapshot) group(ctx context.Context, id string) (*Group, error) {
	g := &Group{ID: id, Versions: []graph.FactVersion{}}
	var err error
	if g.Episodes, err = s.store.GroupEpisodes(ctx, id); err != nil {
		return nil, err
	}
	steps := []func() error{
		func() error { return s.store.EachEntity(ctx, id, appendTo(&g.Entities)) },
		func() error { return s.store.EachFact(ctx, id, appendTo(&g.Facts)) },
		func() error { return s.store.EachFactVersion(ctx, id, appendTo(&g.Versions)) },
		func() error { return s.store.EachMention(ctx, id, appendTo(&g.Mentions)) },
		func() error { return s.store.EachCommunity(ctx, id, appendTo(&g.Communities)) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

func appendTo[T any](dst *[]T) func(T) error {
	return func(v T) error {
		*dst = append(*dst, v)
		return nil
	}
}
