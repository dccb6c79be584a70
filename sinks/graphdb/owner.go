package graphdb

import (
	"cmp"
	"context"
	"slices"
	"sync"
)

// Owned is one node or relationship the loader wrote into its target, as the ownership record
// keeps it (see the package doc, Ownership).
type Owned struct {
	Group string
	Kind  string // node label or relationship type
	UUID  string
	// Hash is "<source> <written>": a hash of the row backfill produced (properties and
	// embedding) and a hash of the properties the loader wrote; "" for a claim (written or
	// about to be, not yet verified).
	Hash  string
	Extra string // what else the loader keeps about the element (JSON: ownExtra), "" when nothing
}

// Owner keeps the record of what the loader wrote into its target, per group: the checkpoint
// store (stages/load), or MemOwner.
type Owner interface {
	// EachOwned calls fn for every element recorded for group.
	EachOwned(ctx context.Context, group string, fn func(Owned) error) error
	// Claim records elements about to be written (with an empty Hash), leaving those recorded.
	Claim(ctx context.Context, els []Owned) error
	// Set replaces group's record with els (what a verified load left of it).
	Set(ctx context.Context, group string, els []Owned) error
}

// MemOwner is an Owner in memory: what a Loader without a store remembers between its loads
// (tests, benchmarks).
type MemOwner struct {
	mu sync.Mutex
	m  map[string]map[ownKey]Owned
}

// NewMemOwner returns an empty MemOwner.
func NewMemOwner() *MemOwner { return &MemOwner{m: map[string]map[ownKey]Owned{}} }

// EachOwned implements Owner, by kind and uuid.
func (o *MemOwner) EachOwned(_ context.Context, group string, fn func(Owned) error) error {
	o.mu.Lock()
	els := make([]Owned, 0, len(o.m[group]))
	for _, e := range o.m[group] {
		els = append(els, e)
	}
	o.mu.Unlock()
	slices.SortFunc(els, func(a, b Owned) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.UUID, b.UUID)) })
	for _, e := range els {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Claim implements Owner.
func (o *MemOwner) Claim(_ context.Context, els []Owned) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range els {
		if o.m[e.Group] == nil {
			o.m[e.Group] = map[ownKey]Owned{}
		}
		k := ownKey{e.Kind, e.UUID}
		if _, ok := o.m[e.Group][k]; !ok {
			o.m[e.Group][k] = Owned{Group: e.Group, Kind: e.Kind, UUID: e.UUID}
		}
	}
	return nil
}

// Set implements Owner.
func (o *MemOwner) Set(_ context.Context, group string, els []Owned) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := make(map[ownKey]Owned, len(els))
	for _, e := range els {
		e.Group = group
		m[ownKey{e.Kind, e.UUID}] = e
	}
	o.m[group] = m
	return nil
}

// ownKey names an element of a group's record.
type ownKey struct{ kind, uuid string }
