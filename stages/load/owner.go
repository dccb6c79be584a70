package load

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks/graphdb"
)

// storeOwner keeps the loader's ownership record (graphdb.Owner) in the checkpoint store's
// sink_owned table, under the sink target's identity.
type storeOwner struct {
	store  *checkpoints.Store
	target string
}

// EachOwned implements graphdb.Owner.
func (o storeOwner) EachOwned(ctx context.Context, group string, fn func(graphdb.Owned) error) error {
	return o.store.EachOwned(ctx, o.target, group, func(e checkpoints.Owned) error {
		return fn(graphdb.Owned(e))
	})
}

// Claim implements graphdb.Owner.
func (o storeOwner) Claim(ctx context.Context, els []graphdb.Owned) error {
	return o.store.ClaimOwned(ctx, o.target, records(els))
}

// Set implements graphdb.Owner.
func (o storeOwner) Set(ctx context.Context, group string, els []graphdb.Owned) error {
	return o.store.SetOwned(ctx, o.target, group, records(els))
}

// records converts the loader's elements to the store's (the two types have the same fields).
func records(els []graphdb.Owned) []checkpoints.Owned {
	out := make([]checkpoints.Owned, len(els))
	for i, e := range els {
		out[i] = checkpoints.Owned(e)
	}
	return out
}
