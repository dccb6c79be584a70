package cypherl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// Defaults of Options.
const (
	DefaultBatchSize  = cypher.DefaultBatchSize  // rows per UNWIND statement
	DefaultBatchBytes = cypher.DefaultBatchBytes // bytes of row literals per UNWIND statement
)

// Options configures ExportWith.
type Options struct {
	Dialect        cypher.Dialect
	BatchSize      int  // most rows per UNWIND statement; 0 means DefaultBatchSize
	BatchBytes     int  // most bytes of row literals per UNWIND statement; 0 means DefaultBatchBytes
	VectorDims     int  // embedding dimensions; 0 detects them from the data, < 0 creates no vector index
	VectorCapacity int  // Memgraph initial vector index capacity; 0 means graphdb.DefaultVectorCapacity
	Bulk           bool // wrap the load in graphdb.BulkBegin / BulkEnd (analytical storage mode)
}

// Export writes src as a CYPHERL script for dialect d with the default options.
func Export(ctx context.Context, src sinks.Source, w io.Writer, d cypher.Dialect) error {
	return ExportWith(ctx, src, w, Options{Dialect: d})
}

// ExportWith writes src as a CYPHERL script (see the package doc).
func ExportWith(ctx context.Context, src sinks.Source, w io.Writer, o Options) error {
	if _, err := cypher.ParseDialect(string(o.Dialect)); err != nil {
		return fmt.Errorf("exporting cypherl: %w", err)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytes
	}
	dims := o.VectorDims
	if dims == 0 {
		var err error
		if dims, err = detectDims(ctx, src); err != nil {
			return fmt.Errorf("detecting embedding dimensions: %w", err)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	x := &exporter{ctx: ctx, src: src, w: bw, o: o}
	schema := cypher.SchemaOptions{VectorDims: dims, VectorCapacity: o.VectorCapacity, Bulk: o.Bulk}
	steps := []func() error{
		func() error { return x.statements(cypher.PreLoad(o.Dialect, schema)) },
		func() error { return x.bulk(cypher.BulkBegin) },
		x.episodes, x.entities, x.communities, x.facts, x.mentions, x.hasMembers,
		func() error { return x.bulk(cypher.BulkEnd) },
		func() error { return x.statements(cypher.PostLoad(o.Dialect, schema)) },
	}
	run := func() error {
		for _, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("exporting cypherl: %w", err)
			}
		}
		return nil
	}
	var err error
	if o.Dialect.GraphPerGroup() {
		// Every group is a graph of its own: all the steps, group by group, into its graph.
		err = sinks.EachGroup(ctx, src, func(g string) error {
			x.only, x.graph = g, cypher.GraphName(g)
			return run()
		})
	} else {
		err = run()
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("exporting cypherl: writing: %w", err)
	}
	return nil
}

// errFound stops a Source stream once an embedding has been seen.
var errFound = errors.New("found")

// detectDims returns the length of the first embedding of the graph, or 0 when there is none.
func detectDims(ctx context.Context, src sinks.Source) (int, error) {
	dims := 0
	found := func(v []float32) error {
		if len(v) > 0 {
			dims = len(v)
			return errFound
		}
		return nil
	}
	err := sinks.EachGroup(ctx, src, func(g string) error {
		if err := src.EachEntity(ctx, g, func(e graph.Entity) error { return found(e.NameEmbedding) }); err != nil {
			return err
		}
		if err := src.EachFact(ctx, g, func(f graph.Fact) error { return found(f.Embedding) }); err != nil {
			return err
		}
		return src.EachCommunity(ctx, g, func(c graph.Community) error { return found(c.NameEmbedding) })
	})
	if errors.Is(err, errFound) {
		return dims, nil
	}
	return 0, err
}

// exporter writes the statements of one export. On a GraphPerGroup dialect it writes one group
// at a time (only) into its graph.
type exporter struct {
	ctx   context.Context
	src   sinks.Source
	w     *bufio.Writer
	o     Options
	only  string // the group being written on a GraphPerGroup dialect
	graph string // its graph
}

// eachGroup calls fn with every group of the export, or with the one being written.
func (x *exporter) eachGroup(fn func(g string) error) error {
	if x.only != "" {
		return fn(x.only)
	}
	return sinks.EachGroup(x.ctx, x.src, fn)
}

// line writes one statement: as `stmt;` on a line of its own, or on a GraphPerGroup dialect as
// a redis-cli command line `GRAPH.QUERY graph "stmt"` (redisQuote).
func (x *exporter) line(stmt string) error {
	var err error
	if x.o.Dialect.GraphPerGroup() {
		_, err = x.w.WriteString("GRAPH.QUERY " + redisQuote(x.graph) + " " + redisQuote(stmt) + "\n")
	} else {
		_, err = x.w.WriteString(stmt + ";\n")
	}
	if err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}

// redisQuote quotes s as one argument of a redis-cli command line (sdssplitargs, which the
// server's inline commands use too): in double quotes, with \\ \" \n \r \t escaped and other
// control bytes as \xHH; other bytes, UTF-8 included, as they are.
func redisQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// limits is the batching rule of the export.
func (x *exporter) limits() cypher.Limits {
	return cypher.Limits{Rows: x.o.BatchSize, Bytes: x.o.BatchBytes}
}

func (x *exporter) statements(sts []cypher.Statement) error {
	for _, s := range sts {
		if s.Command != nil {
			if err := x.command(s.Command); err != nil {
				return err
			}
			continue
		}
		if err := x.line(s.Cypher); err != nil {
			return err
		}
	}
	return nil
}

// command writes a FalkorDB command that is not Cypher (cypher.Statement.Command) as a
// redis-cli command line as GRAPH.QUERY lines are written: the command name as is, its
// arguments quoted (redisQuote), the graph's name in place of cypher.GraphArg.
func (x *exporter) command(args []string) error {
	parts := make([]string, len(args))
	for i, a := range args {
		if a == cypher.GraphArg {
			a = x.graph
		}
		parts[i] = a
		if i > 0 {
			parts[i] = redisQuote(a)
		}
	}
	if _, err := x.w.WriteString(strings.Join(parts, " ") + "\n"); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}

func (x *exporter) bulk(fn func(cypher.Dialect) []cypher.Statement) error {
	if !x.o.Bulk {
		return nil
	}
	return x.statements(fn(x.o.Dialect))
}

// batch collects rendered rows per statement and writes each statement's rows as UNWIND
// statements under the batching rule of sinks/cypher (cypher.Limits: Options.BatchSize rows,
// Options.BatchBytes bytes of literals); flush writes what is left in order of first use.
type batch struct {
	x       *exporter
	pending map[string]*cypher.Pending
	order   []string // statements in order of first use
}

func newBatch(x *exporter) *batch { return &batch{x: x, pending: map[string]*cypher.Pending{}} }

// add renders row for stmt and writes stmt's batch once it is full.
func (b *batch) add(stmt string, row cypher.Row) error {
	var s strings.Builder
	if err := cypher.WriteLiteral(&s, b.x.o.Dialect, row); err != nil {
		return fmt.Errorf("row %v: %w", row[cypher.KeyUUID], err)
	}
	p := b.pending[stmt]
	if p == nil {
		p = &cypher.Pending{}
		b.pending[stmt] = p
		b.order = append(b.order, stmt)
	}
	if p.Add(b.x.limits(), cypher.Literal(s.String()), s.Len()) {
		return b.write(stmt, p)
	}
	return nil
}

// flush writes every statement's pending rows, statements in order of first use.
func (b *batch) flush() error {
	for _, stmt := range b.order {
		if err := b.write(stmt, b.pending[stmt]); err != nil {
			return err
		}
	}
	return nil
}

// write writes p's rows as one `UNWIND [ … ] AS row <stmt>` statement.
func (b *batch) write(stmt string, p *cypher.Pending) error {
	rows, _ := p.Take()
	if len(rows) == 0 {
		return nil
	}
	var line strings.Builder
	line.WriteString("UNWIND ")
	if err := cypher.WriteLiteral(&line, b.x.o.Dialect, rows); err != nil {
		return err
	}
	line.WriteString(" AS row ")
	line.WriteString(strings.TrimPrefix(stmt, cypher.RowsPrefix))
	return b.x.line(line.String())
}
