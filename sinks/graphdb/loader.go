package graphdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// Loader defaults.
const (
	// DefaultSessions is 2: on a quiet 2-core machine two sessions reached 77-84% of the plain
	// driver's ceiling with 1024-d embeddings and 52-62% without, against 68-84% and 41-47%
	// with one (default index mode, bench/results.md); one measured faster only when other work
	// loaded the cores Neo4j runs on.
	DefaultSessions   = 2
	DefaultBatchSize  = cypher.DefaultBatchSize
	DefaultBatchBytes = cypher.DefaultBatchBytes
	// DefaultVectorsAfterBatchBytes is the bytes bound of a Neo4j load that creates the vector
	// indexes after its last write (cypher.IndexMode.VectorsAfter): without vector indexes to
	// maintain during the load, 8 MiB transactions of 1024-d rows measured 81-83% of the plain
	// driver's ceiling against 74-76% with 2 MiB (16 MiB: 81%; bench/results.md).
	DefaultVectorsAfterBatchBytes = 8 << 20
	DefaultChunkRows              = 20_000
	maxChunkGroups                = 1000
	// DefaultLeaseTTL is how long a group's lease lasts unless its load renews it (every third
	// of it): a load killed without releasing its leases holds its groups this long.
	DefaultLeaseTTL = 2 * time.Minute
	// DefaultLeaseWait is how long a load waits for groups another load holds before it fails
	// naming that load.
	DefaultLeaseWait = time.Minute
)

// Progress receives the loader's progress in rows; stages.Progress satisfies it.
type Progress interface {
	Start(stage string, total int)
	Add(n int)
	Done()
}

// Options configures a Loader.
type Options struct {
	Dialect  cypher.Dialect
	URI      string // bolt://host:port (a standalone Memgraph rejects neo4j:// routing); FalkorDB: redis://host:port or rediss://
	Username string // empty username and password: no authentication
	Password string
	Database string // empty: the server's default database; FalkorDB: must be empty (each group has its graph)

	Sessions       int  // groups written at once, each by its own worker and session; 0 means DefaultSessions
	BatchSize      int  // most rows per UNWIND transaction; 0 means DefaultBatchSize
	BatchBytes     int  // most bytes of rows (estimated as sent) per UNWIND transaction; 0 means DefaultBatchBytesFor(Dialect, Indexes)
	ChunkRows      int  // rows after which a chunk of groups is settled; 0 means DefaultChunkRows
	Analytical     bool // Memgraph only: load in IN_MEMORY_ANALYTICAL storage mode (see the package doc)
	VectorDims     int  // embedding dimensions for the vector indexes; 0 creates none
	VectorCapacity int  // Memgraph vector index capacity; 0 means DefaultVectorCapacity
	// Indexes says which indexes are online when Load returns on Neo4j (cypher.IndexMode); ""
	// means cypher.DefaultIndexMode. IndexesBackground needs the neo4j dialect. The indexes
	// Neo4j may still populate then are named in Result.IndexesPopulating.
	Indexes cypher.IndexMode

	// Foreign says what a load does with what it did not write (ForeignKeep, the default, or
	// ForeignDelete); Owner keeps the record of what it wrote (nil: a MemOwner for this Loader).
	Foreign Foreign
	Owner   Owner
	// Job names the load in its leases, with the host and process id, for the error another
	// load of the same groups shows. LeaseTTL is how long a lease lasts unrenewed (0 means
	// DefaultLeaseTTL; the load renews it every third of that); LeaseWait how long a load waits
	// for groups another load holds (0 means DefaultLeaseWait, negative: fail at once).
	Job       string
	LeaseTTL  time.Duration
	LeaseWait time.Duration

	MaxAttempts int             // tries per transaction; 0 means DefaultMaxAttempts
	RetryBase   time.Duration   // first backoff; 0 means DefaultRetryBase
	Progress    Progress        // rows written; nil means none
	Stop        <-chan struct{} // when closed, Load finishes the chunk in progress and returns ErrStopped
	Log         *slog.Logger    // nil means slog.Default()
	Observer    Observer        // watches the write transactions and verifications; nil: none
}

// DefaultBatchBytesFor is the default bytes bound of a transaction: DefaultBatchBytes, or
// DefaultVectorsAfterBatchBytes on Neo4j when the vector indexes are created after the last
// write (mode "" is cypher.DefaultIndexMode).
func DefaultBatchBytesFor(d cypher.Dialect, mode cypher.IndexMode) int {
	if mode == "" {
		mode = cypher.DefaultIndexMode
	}
	if d == cypher.Neo4j && mode.VectorsAfter() {
		return DefaultVectorsAfterBatchBytes
	}
	return DefaultBatchBytes
}

func (o *Options) defaults() error {
	var err error
	if _, err = cypher.ParseDialect(string(o.Dialect)); err != nil {
		return err
	}
	if o.Analytical && o.Dialect != cypher.Memgraph {
		return errors.New("analytical mode needs the memgraph dialect")
	}
	mode, err := cypher.ParseIndexMode(string(o.Indexes))
	if err != nil {
		return err
	}
	o.Indexes = mode
	if o.Dialect.GraphPerGroup() && o.Database != "" {
		return fmt.Errorf("%s keeps each group in a graph named after it: the database must be empty, not %q", o.Dialect, o.Database)
	}
	if mode == cypher.IndexesBackground && o.Dialect != cypher.Neo4j {
		return errors.New("background indexes need the neo4j dialect (Memgraph builds every index as it creates it)")
	}
	if o.Sessions <= 0 {
		o.Sessions = DefaultSessions
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.BatchBytes <= 0 {
		o.BatchBytes = DefaultBatchBytesFor(o.Dialect, o.Indexes)
	}
	if o.ChunkRows <= 0 {
		o.ChunkRows = DefaultChunkRows
	}
	if o.Foreign, err = ParseForeign(string(o.Foreign)); err != nil {
		return err
	}
	if o.Owner == nil {
		o.Owner = NewMemOwner()
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.LeaseWait == 0 {
		o.LeaseWait = DefaultLeaseWait
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.Progress == nil {
		o.Progress = noProgress{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return nil
}

type noProgress struct{}

func (noProgress) Start(string, int) {}
func (noProgress) Add(int)           {}
func (noProgress) Done()             {}

// Result is what a Load did.
type Result struct {
	Groups        int `json:"groups"`         // groups loaded
	FreshGroups   int `json:"fresh_groups"`   // of them, groups the database held no node of: written with CREATE
	Nodes         int `json:"nodes"`          // node rows written
	Edges         int `json:"edges"`          // relationship rows written
	Deleted       int `json:"deleted"`        // stale nodes and relationships removed
	LabelsRemoved int `json:"labels_removed"` // stale entity labels removed
	Batches       int `json:"batches"`        // write transactions committed
	Retries       int `json:"retries"`        // transactions tried again after a transient error
	// Counts are per label ("Entity", "Entity:Person") and type the elements the load wrote, as
	// counted in the database after it (what other writers added to the groups is ForeignKept).
	Counts map[string]int `json:"counts"`
	// Unchanged are the rows written only where the database lacked them: elements the loader
	// wrote before and whose data did not change, left as they are (with what another writer
	// changed on them).
	Unchanged int `json:"unchanged"`
	// ForeignKept are the nodes and relationships of the loaded groups that another writer
	// wrote, kept (sink.foreign: keep), per label and type in ForeignKinds.
	ForeignKept  int            `json:"foreign_kept"`
	ForeignKinds map[string]int `json:"foreign_kept_by_kind,omitempty"`
	// OverwrittenOnlineEdits are the elements another writer had changed since the loader last
	// wrote them whose changed data the loader wrote over that change; OverwrittenSample lists
	// the first uuids.
	OverwrittenOnlineEdits int      `json:"overwritten_online_edits"`
	OverwrittenSample      []string `json:"overwritten_online_edits_sample,omitempty"`
	// OnlineClosuresKept are the facts another writer closed that stay closed although the
	// loader's data for them changed (see the package doc, Ownership).
	OnlineClosuresKept int `json:"online_closures_kept"`
	// DuplicatesRepaired are the extra copies of uuids removed (nodes and relationships left
	// twice by a load of an older version or by two loads into a database without constraints).
	DuplicatesRepaired int `json:"duplicates_repaired"`
	// ConstraintsMissing are the uuid uniqueness constraints the database does not have after
	// the load (duplicates elsewhere, or an index of another name in the way), with why.
	ConstraintsMissing []string `json:"constraints_missing,omitempty"`
	// LeaseWaitSeconds is how long the load waited for groups another load held.
	LeaseWaitSeconds float64 `json:"lease_wait_seconds"`
	// SchemaSeconds is the time of the schema after the last write (cypher.PostLoad: indexes
	// created, on Neo4j awaited as Options.Indexes says); part of Seconds.
	SchemaSeconds float64 `json:"schema_seconds"`
	// IndexesPopulating are the indexes Neo4j was still populating in the background when Load
	// returned (SHOW INDEXES shows their progress): the graph is complete, queries through
	// those indexes (full-text and vector searches) see part of it until they are online.
	IndexesPopulating []string `json:"indexes_populating,omitempty"`
	Seconds           float64  `json:"seconds"`
}

// Loader writes groups of the graph into Memgraph or Neo4j over Bolt, or into FalkorDB over RESP.
type Loader struct {
	o   Options
	ex  executor
	mu  sync.Mutex // guards res and missing while workers write
	res Result

	edgeIndexes bool                         // this Load created the relationship lookup indexes
	missing     map[string]missingConstraint // uniqueness constraints a graph lacks (constraintKey)
	leases      *leases                      // the leases this Load holds
}

// count updates the result under the lock (workers report as they write).
func (l *Loader) count(fn func(*Result)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn(&l.res)
}

// Open validates o and connects to the database.
func Open(ctx context.Context, o Options) (*Loader, error) {
	if err := o.defaults(); err != nil {
		return nil, fmt.Errorf("opening loader: %w", err)
	}
	var ex executor
	var err error
	if o.Dialect == cypher.FalkorDB {
		ex, err = dialRESP(o.URI, o.Username, o.Password, o.Sessions)
	} else {
		ex, err = dialBolt(o.URI, o.Username, o.Password, o.Sessions)
	}
	if err != nil {
		return nil, err
	}
	l := &Loader{o: o, ex: ex}
	err = l.retrier().do(ctx, ex.ping)
	if err != nil {
		ex.close(ctx)
		return nil, fmt.Errorf("connecting to %s: %w", o.URI, err)
	}
	return l, nil
}

// Close closes the connections.
func (l *Loader) Close(ctx context.Context) error { return l.ex.close(ctx) }

func (l *Loader) retrier() retrier {
	return retrier{attempts: l.o.MaxAttempts, base: l.o.RetryBase, onRetry: func(attempt int, err error) {
		l.mu.Lock()
		l.res.Retries++
		l.mu.Unlock()
		l.o.Log.Warn("retrying after a transient error", "attempt", attempt, "err", err)
	}}
}

// ErrStopped is returned by Load when Options.Stop was closed: the chunk in progress was
// finished and recorded, the rest of the groups were not loaded.
var ErrStopped = errors.New("load stopped")

// Load writes the given groups of src: schema (PreLoad), with Options.Analytical the switch to
// analytical storage, then the groups chunk by chunk (nodes, relationships, then settle: stale
// elements deleted, stale labels removed, counts verified), with Options.Analytical the
// snapshot and the switch back, and PostLoad. done (which may be nil) records loaded groups: it
// is called for each verified chunk except the last, and for the rest once PostLoad has run (in
// analytical mode: for every group, after the snapshot and PostLoad). So a group is recorded
// only once it and the schema are complete, and a load killed at any point leaves unrecorded
// groups that the next Load writes again.
func (l *Loader) Load(ctx context.Context, src sinks.Source, groups []string, done func(ctx context.Context, groups []string) error) (Result, error) {
	start := time.Now()
	l.res, l.edgeIndexes = Result{Counts: map[string]int{}, ForeignKinds: map[string]int{}}, false
	l.missing = map[string]missingConstraint{}
	l.leases = l.startLeases()
	defer l.leases.close()
	groups = slices.Clone(groups)
	slices.Sort(groups)
	groups = slices.Compact(groups)
	if done == nil {
		done = func(context.Context, []string) error { return nil }
	}
	l.o.Progress.Start("load", -1)
	defer l.o.Progress.Done()
	err := l.load(ctx, src, groups, done)
	l.res.ConstraintsMissing = l.missingReport()
	if len(l.res.ForeignKinds) == 0 {
		l.res.ForeignKinds = nil
	}
	l.res.Seconds = time.Since(start).Seconds()
	if err != nil && !errors.Is(err, ErrStopped) {
		return l.res, fmt.Errorf("loading into %s: %w", l.o.Dialect, err)
	}
	return l.res, err
}

func (l *Loader) load(ctx context.Context, src sinks.Source, groups []string, done func(context.Context, []string) error) error {
	if !l.o.Dialect.GraphPerGroup() {
		if err := l.schema(ctx, l.o.Database, cypher.PreLoad(l.o.Dialect, l.schemaOptions())); err != nil {
			return err
		}
	}
	bulk := l.o.Analytical && len(groups) > 0
	early := done
	if bulk {
		// Every lookup index exists before the switch to analytical mode (Memgraph's bulk path):
		// settling held groups reads relationships through the edge ones.
		if err := l.schema(ctx, l.o.Database, cypher.EdgeLookups(l.o.Dialect)); err != nil {
			return err
		}
		l.edgeIndexes = true
		if err := l.schema(ctx, l.o.Database, cypher.BulkBegin(l.o.Dialect)); err != nil {
			return err
		}
		early = nil
	}
	held, stopped, err := l.chunks(ctx, src, groups, early)
	if err != nil {
		if bulk {
			l.leaveBulk()
		}
		return err
	}
	if bulk {
		if err := l.schema(ctx, l.o.Database, cypher.BulkEnd(l.o.Dialect)); err != nil {
			return err
		}
	}
	start := time.Now()
	if !l.o.Dialect.GraphPerGroup() {
		if err := l.schema(ctx, l.o.Database, cypher.PostLoad(l.o.Dialect, l.schemaOptions())); err != nil {
			return err
		}
		if err := l.retryMissing(ctx, nil); err != nil {
			return err
		}
	}
	if err := l.checkIndexes(ctx); err != nil {
		return err
	}
	l.res.SchemaSeconds = time.Since(start).Seconds()
	if len(held) > 0 {
		if err := done(ctx, held); err != nil {
			return fmt.Errorf("recording loaded groups: %w", err)
		}
	}
	if stopped {
		return ErrStopped
	}
	return nil
}

func (l *Loader) schemaOptions() cypher.SchemaOptions {
	return cypher.SchemaOptions{VectorDims: l.o.VectorDims, VectorCapacity: l.o.VectorCapacity, Indexes: l.o.Indexes, Bulk: l.o.Analytical}
}

// leaveBulk switches a failed analytical load back to transactional storage, best effort.
func (l *Loader) leaveBulk() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	end := cypher.BulkEnd(l.o.Dialect)
	if err := l.ex.exec(ctx, l.o.Database, end[len(end)-1], nil); err != nil {
		l.o.Log.Error("switching back to transactional storage after a failed load", "err", err)
	}
}

// schema runs schema statements in graph; a run of adjacent statements with the same Together
// value goes in one transaction.
func (l *Loader) schema(ctx context.Context, graph string, sts []cypher.Statement) error {
	for len(sts) > 0 {
		n := 1
		for sts[0].Together != "" && n < len(sts) && sts[n].Together == sts[0].Together {
			n++
		}
		if err := l.schemaRun(ctx, graph, sts[:n]); err != nil {
			return err
		}
		sts = sts[n:]
	}
	return nil
}

// schemaRun runs one statement, or several in one transaction, in graph. An error saying the
// element exists (cypher.SchemaExists: Memgraph and FalkorDB lack IF NOT EXISTS for some schema
// elements; Neo4j reports two sessions creating the same element at once) means the statement
// ran before and is ignored. A failed statement with a Fallback runs the fallback instead. A
// statement creating a uniqueness constraint runs through constraint.
func (l *Loader) schemaRun(ctx context.Context, graph string, run []cypher.Statement) error {
	if len(run) == 1 && run[0].Constraint != "" {
		return l.constraint(ctx, graph, run[0])
	}
	err := l.retrier().do(ctx, func(ctx context.Context) error {
		if len(run) == 1 {
			return l.ex.exec(ctx, graph, run[0], nil)
		}
		return l.ex.execAll(ctx, graph, run)
	})
	if cypher.SchemaExists(l.o.Dialect, err) {
		l.o.Log.Debug("schema element exists", "statement", run[0].Cypher)
		return nil
	}
	if fb := run[0].Fallback; err != nil && len(run) == 1 && fb != "" && ctx.Err() == nil {
		l.o.Log.Info("schema statement failed; running its fallback", "statement", run[0].Cypher, "fallback", fb, "err", err)
		return l.schemaRun(ctx, graph, []cypher.Statement{{Cypher: fb, AutoCommit: run[0].AutoCommit}})
	}
	if err != nil && len(run) > 1 {
		return fmt.Errorf("running %q and %d more in one transaction: %w", run[0].Cypher, len(run)-1, err)
	}
	if err != nil {
		return fmt.Errorf("running %q: %w", run[0].Cypher, err)
	}
	return nil
}

// graphOf is the graph that holds group: its own graph on a GraphPerGroup dialect
// (cypher.GraphName), else Options.Database.
func (l *Loader) graphOf(group string) string {
	if l.o.Dialect.GraphPerGroup() {
		return cypher.GraphName(group)
	}
	return l.o.Database
}

// graphGroups are the groups of one graph.
type graphGroups struct {
	graph  string
	groups []string
}

// byGraph splits groups by the graph that holds them, graphs in order of first appearance: one
// part for a dialect that keeps every group in one database, one per group on FalkorDB. Queries
// over several groups (which are held, list, count) run once per part.
func (l *Loader) byGraph(groups []string) []graphGroups {
	var out []graphGroups
	at := map[string]int{}
	for _, g := range groups {
		name := l.graphOf(g)
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, graphGroups{graph: name})
		}
		out[i].groups = append(out[i].groups, g)
	}
	return out
}

// limits is the batching rule of the load (cypher.Limits).
func (l *Loader) limits() cypher.Limits {
	return cypher.Limits{Rows: l.o.BatchSize, Bytes: l.o.BatchBytes}
}
