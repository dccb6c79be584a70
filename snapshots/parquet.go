package snapshots

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks/parquet"
)

// parquetSnapshot reads an export directory by walking its group-ordered tables side by side.
type parquetSnapshot struct{ dir string }

// OpenParquet reads a Parquet export directory written by `backfill export --format parquet`.
// Each table must be a file that starts and ends with Parquet's magic bytes (an empty or
// truncated file is an error naming it); a file damaged inside is an error naming it when it is
// read, never a panic.
func OpenParquet(dir string) (Snapshot, error) {
	for _, name := range []string{parquet.EpisodesFile, parquet.EntitiesFile, parquet.FactsFile, parquet.MentionsFile,
		parquet.CommunitiesFile, parquet.HasMemberFile} {
		if err := checkMagic(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("opening export %s: %w", dir, err)
		}
	}
	return &parquetSnapshot{dir: dir}, nil
}

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// checkMagic reports a file that is not there, not a regular file, or too short or without the
// magic bytes at either end to be Parquet (an empty or truncated table, or another file).
func checkMagic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	bad := fmt.Errorf("%s is not a Parquet file (%d bytes; empty, truncated or damaged: export the graph again)", path, st.Size())
	if st.Size() < 2*int64(len(parquetMagic))+4 {
		return bad
	}
	head, tail := make([]byte, len(parquetMagic)), make([]byte, len(parquetMagic))
	if _, err := f.ReadAt(head, 0); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if _, err := f.ReadAt(tail, st.Size()-int64(len(parquetMagic))); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if string(head) != parquetMagic || string(tail) != parquetMagic {
		return bad
	}
	return nil
}

func (p *parquetSnapshot) HasVersions() bool { return false }

func (p *parquetSnapshot) Kind() string { return KindExport }

func (p *parquetSnapshot) Describe() string { return KindExport + " " + p.dir }

func (p *parquetSnapshot) Runs(context.Context) ([]checkpoints.Run, error) { return nil, nil }

func (p *parquetSnapshot) Close() error { return nil }

func (p *parquetSnapshot) Groups(ctx context.Context, want func(string) bool) iter.Seq2[*Group, error] {
	return func(yield func(*Group, error) bool) {
		eps := newCursor(ctx, p.dir, parquet.EpisodesFile, func(r parquet.EpisodeRow) string { return r.GroupID })
		ents := newCursor(ctx, p.dir, parquet.EntitiesFile, func(r parquet.EntityRow) string { return r.GroupID })
		facts := newCursor(ctx, p.dir, parquet.FactsFile, func(r parquet.FactRow) string { return r.GroupID })
		ments := newCursor(ctx, p.dir, parquet.MentionsFile, func(r parquet.EdgeRow) string { return r.GroupID })
		comms := newCursor(ctx, p.dir, parquet.CommunitiesFile, func(r parquet.CommunityRow) string { return r.GroupID })
		members := newCursor(ctx, p.dir, parquet.HasMemberFile, func(r parquet.EdgeRow) string { return r.GroupID })
		all := []groupCursor{eps, ents, facts, ments, comms, members}
		defer func() {
			for _, c := range all {
				c.close()
			}
		}()
		for _, c := range all {
			if err := c.start(); err != nil {
				yield(nil, err)
				return
			}
		}
		for {
			id, ok := nextGroup(all)
			if !ok {
				return
			}
			g, err := p.read(id, want == nil || want(id), eps, ents, facts, ments, comms, members)
			if err != nil {
				yield(nil, err)
				return
			}
			if g != nil && !yield(g, nil) {
				return
			}
		}
	}
}

// read takes every row of group id from each table and returns the group, or nil when keep is
// false.
func (p *parquetSnapshot) read(id string, keep bool, eps *cursor[parquet.EpisodeRow], ents *cursor[parquet.EntityRow],
	facts *cursor[parquet.FactRow], ments *cursor[parquet.EdgeRow], comms *cursor[parquet.CommunityRow],
	members *cursor[parquet.EdgeRow]) (*Group, error) {
	g := &Group{ID: id}
	byComm := map[string][]string{}
	steps := []func() error{
		func() error {
			return eps.take(id, func(r parquet.EpisodeRow) error { g.Episodes = append(g.Episodes, r.Domain()); return nil })
		},
		func() error {
			return ents.take(id, func(r parquet.EntityRow) error {
				e, err := r.Domain()
				g.Entities = append(g.Entities, e)
				return err
			})
		},
		func() error {
			return facts.take(id, func(r parquet.FactRow) error { g.Facts = append(g.Facts, r.Domain()); return nil })
		},
		func() error {
			return ments.take(id, func(r parquet.EdgeRow) error { g.Mentions = append(g.Mentions, r.Mention()); return nil })
		},
		func() error {
			return comms.take(id, func(r parquet.CommunityRow) error { g.Communities = append(g.Communities, r.Domain()); return nil })
		},
		func() error {
			return members.take(id, func(r parquet.EdgeRow) error {
				byComm[r.SourceNodeUUID] = append(byComm[r.SourceNodeUUID], r.TargetNodeUUID)
				return nil
			})
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if !keep { // read past: the cursors moved on, the rows are dropped
		return nil, nil
	}
	for i := range g.Communities {
		g.Communities[i].Members = byComm[g.Communities[i].UUID]
	}
	return g, nil
}

// nextGroup is the smallest group id at the head of any table.
func nextGroup(cs []groupCursor) (string, bool) {
	best, found := "", false
	for _, c := range cs {
		if id, ok := c.peek(); ok && (!found || id < best) {
			best, found = id, true
		}
	}
	return best, found
}

// groupCursor is what nextGroup and cleanup need of a cursor of any row type.
type groupCursor interface {
	start() error
	peek() (string, bool)
	close()
}

// cursor walks one table, checking that group ids never decrease.
type cursor[R any] struct {
	path  string
	name  string
	seq   iter.Seq2[R, error]
	next  func() (R, error, bool)
	stop  func()
	group func(R) string
	head  R
	ok    bool
	last  string
}

func newCursor[R any](ctx context.Context, dir, name string, group func(R) string) *cursor[R] {
	return &cursor[R]{path: filepath.Join(dir, name), name: name, seq: parquet.Rows[R](ctx, dir, name), group: group}
}

func (c *cursor[R]) start() error {
	c.next, c.stop = iter.Pull2(c.seq)
	return c.advance()
}

// advance reads the next row. The Parquet reader panics on some damage inside a file (a footer
// or page that does not decode); that is an error naming the file.
func (c *cursor[R]) advance() (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.ok = false
			err = fmt.Errorf("reading %s: the file is damaged (%v): export the graph again", c.path, p)
		}
	}()
	r, err, ok := c.next()
	if !ok {
		c.ok = false
		return nil
	}
	if err != nil {
		c.ok = false
		return err
	}
	g := c.group(r)
	if g < c.last {
		return fmt.Errorf("reading %s: group %q after %q: the table is not in group order", c.name, g, c.last)
	}
	c.head, c.ok, c.last = r, true, g
	return nil
}

func (c *cursor[R]) peek() (string, bool) {
	if !c.ok {
		return "", false
	}
	return c.group(c.head), true
}

// take hands every row of group id at the head of the table to fn.
func (c *cursor[R]) take(id string, fn func(R) error) error {
	for c.ok && c.group(c.head) == id {
		if err := fn(c.head); err != nil {
			return err
		}
		if err := c.advance(); err != nil {
			return err
		}
	}
	return nil
}

func (c *cursor[R]) close() {
	defer func() { _ = recover() }() // a reader that panicked in advance may panic again as it stops
	if c.stop != nil {
		c.stop()
	}
}
