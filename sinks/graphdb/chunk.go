package graphdb

import (
	"context"
	"fmt"
	"sync"

	"github.com/tkgraph/backfill/internal/workpool"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// chunk is a run of whole groups written together and then settled: it remembers the uuid of
// every node and relationship written, per label or type, and the extra labels of each entity.
// The workers writing its groups share it.
type chunk struct {
	mu     sync.Mutex
	groups []string
	held   bool                       // some group of the chunk held nodes before it was written
	keep   map[string]map[string]bool // label or type → uuids written
	labels map[string][]string        // entity uuid → extra labels written
	rows   int
	owns   map[string]*groupOwn // group → its ownership state (the record before, the one after)
}

func newChunk() *chunk {
	return &chunk{keep: map[string]map[string]bool{}, labels: map[string][]string{}, owns: map[string]*groupOwn{}}
}

// setOwn keeps a group's ownership state for the settle.
func (c *chunk) setOwn(g *groupOwn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.owns[g.group] = g
}

// owned returns, for the chunk's groups, what the record held before the load: element →
// its record entry.
func (c *chunk) owned() map[ownKey]Owned {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[ownKey]Owned{}
	for _, g := range c.owns {
		for k, o := range g.rec {
			out[k] = o
		}
	}
	return out
}

// add records a row of kind (and, for an entity, its extra labels); a uuid written twice for one
// kind is an error (the source must not repeat a record, and CREATE would duplicate it).
func (c *chunk) add(kind, uuid string, labels []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keep[kind] == nil {
		c.keep[kind] = map[string]bool{}
	}
	if c.keep[kind][uuid] {
		return fmt.Errorf("%s %s appears twice in the source", kind, uuid)
	}
	c.keep[kind][uuid] = true
	if kind == cypher.LabelEntity {
		c.labels[uuid] = labels
	}
	c.rows++
	return nil
}

func (c *chunk) size() (rows, groups int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rows, len(c.groups)
}

// job is one group for a worker, with how its rows are written.
type job struct {
	group string
	mode  cypher.Write
}

// workers write one chunk's groups: Options.Sessions goroutines, each with its own writer
// (batches, one session per transaction), take the groups one at a time. Groups share no node,
// so their writes never conflict, and a worker writes a group's nodes before its relationships.
type workers struct {
	jobs   chan job      // groups to write
	free   chan struct{} // holds a token per group given out and not yet written
	ctx    context.Context
	cancel context.CancelFunc // called when a worker fails
	wait   func() error
}

func (l *Loader) startWorkers(ctx context.Context, c *chunk, stmts *statements, src sinks.Source) *workers {
	wctx, cancel := context.WithCancel(ctx)
	n := l.o.Sessions
	ws := &workers{jobs: make(chan job, n), free: make(chan struct{}, n), ctx: wctx, cancel: cancel}
	p := workpool.New(wctx, n)
	for range n {
		p.Go(func(ctx context.Context) error {
			w := newWriter(l)
			for j := range ws.jobs {
				if err := l.writeGroup(ctx, w, c, stmts, src, j.group, j.mode); err != nil {
					cancel()
					// The batch in flight ends before the worker does, so no write outlives
					// the load (and races the driver's Close); the first error is the one
					// reported.
					_ = w.wait()
					return fmt.Errorf("writing group %s: %w", j.group, err)
				}
				<-ws.free
			}
			if err := w.flush(ctx); err != nil {
				cancel()
				return err
			}
			return nil
		})
	}
	ws.wait = p.Wait
	return ws
}

// acquire waits until a worker is free: fewer than Options.Sessions groups are being written
// (with one session: the group before is written). Once a worker has failed or the context has
// ended it finishes the workers and returns the error.
func (ws *workers) acquire() error {
	select {
	case ws.free <- struct{}{}:
		return nil
	case <-ws.ctx.Done():
		if err := ws.finish(); err != nil {
			return err
		}
		return ws.ctx.Err()
	}
}

// finish lets the workers write what they hold and returns the first error.
func (ws *workers) finish() error {
	close(ws.jobs)
	err := ws.wait()
	ws.cancel()
	return err
}

// chunks writes groups chunk by chunk; each chunk is written by the workers, then settled, and
// its groups' leases released. The leases of up to maxChunkGroups groups at a time are taken
// (leases.take) before they are looked up: groups the database holds no node of (heldGroups)
// are written with CREATE, the others with MERGE (writeGroup). The relationship lookup indexes
// (cypher.EdgeLookups) are created before the first held group is written. A chunk ends
// once it holds Options.ChunkRows rows or maxChunkGroups groups (checked whenever a worker is
// free, so it may exceed that by up to Options.Sessions-1 groups). The groups of every settled
// chunk but the last go to early (when not nil); the others are returned as held. It stops
// before the next group once Options.Stop is closed, and reports that.
func (l *Loader) chunks(ctx context.Context, src sinks.Source, groups []string, early func(context.Context, []string) error) (held []string, stopped bool, err error) {
	stmts := &statements{l: l, m: map[string]stmt{}}
	var c *chunk
	var ws *workers
	end := func() error {
		if ws == nil {
			return nil
		}
		err := ws.finish()
		ws = nil
		if err != nil {
			return err
		}
		if err := l.settle(ctx, c); err != nil {
			return err
		}
		l.leases.release(ctx, c.groups)
		l.res.Groups += len(c.groups)
		if early != nil && len(held) > 0 {
			if err := early(ctx, held); err != nil {
				return fmt.Errorf("recording loaded groups: %w", err)
			}
			held = nil
		}
		held = append(held, c.groups...)
		return nil
	}
	var inDB map[string]bool
	looked := 0 // groups[:looked] have been looked up
	for i, g := range groups {
		if ws != nil {
			if err := ws.acquire(); err != nil {
				return nil, false, err
			}
			if rows, n := c.size(); rows >= l.o.ChunkRows || n >= maxChunkGroups {
				if err := end(); err != nil {
					return nil, false, err
				}
			}
		}
		if l.stopped() {
			stopped = true
			break
		}
		if i == looked {
			window := groups[i:min(len(groups), i+maxChunkGroups)]
			err := l.leases.take(ctx, window)
			if err == nil {
				inDB, err = l.heldGroups(ctx, window)
			}
			if err != nil {
				if ws != nil {
					ws.cancel()
					_ = ws.finish()
				}
				return nil, false, err
			}
			looked += len(window)
		}
		if inDB[g] && !l.edgeIndexes {
			// Before the first held group is written: its writes and its settle read
			// relationships by uuid, and on Neo4j the relationship uuid constraints come with them.
			if err := l.schema(ctx, l.o.Database, cypher.EdgeLookups(l.o.Dialect)); err != nil {
				if ws != nil {
					ws.cancel()
					_ = ws.finish()
				}
				return nil, false, err
			}
			l.edgeIndexes = true
		}
		if ws == nil {
			c = newChunk()
			ws = l.startWorkers(ctx, c, stmts, src)
			ws.free <- struct{}{} // a new pool has every worker free
		}
		mode := cypher.Create
		c.mu.Lock()
		if inDB[g] {
			mode, c.held = cypher.Merge, true
		} else {
			l.res.FreshGroups++
		}
		c.groups = append(c.groups, g)
		c.mu.Unlock()
		ws.jobs <- job{g, mode}
	}
	if err := end(); err != nil {
		return nil, false, err
	}
	return held, stopped, nil
}

// heldGroups returns which of groups hold an Episodic, Entity or Community node, asked once per
// graph (byGraph).
func (l *Loader) heldGroups(ctx context.Context, groups []string) (map[string]bool, error) {
	q, err := cypher.HeldGroups(l.o.Dialect)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, gg := range l.byGraph(groups) {
		err = l.retrier().do(ctx, func(ctx context.Context) error {
			for _, g := range gg.groups {
				delete(out, g)
			}
			return l.ex.query(ctx, gg.graph, q, map[string]any{"groups": gg.groups}, func(vals []any) error {
				g, _ := vals[0].(string)
				out[g] = true
				return nil
			})
		})
		if err != nil {
			return nil, fmt.Errorf("looking up which groups the database holds: %w", err)
		}
	}
	return out, nil
}

// stopped reports whether Options.Stop has been closed.
func (l *Loader) stopped() bool {
	select {
	case <-l.o.Stop:
		return true
	default:
		return false
	}
}
