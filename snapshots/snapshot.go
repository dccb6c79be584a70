package snapshots

import (
	"context"
	"fmt"
	"iter"
	"os"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// Group is one group's part of a finished graph.
type Group struct {
	ID          string
	Episodes    []graph.Episode
	Entities    []graph.Entity
	Facts       []graph.Fact
	Versions    []graph.FactVersion // nil when the snapshot has no version log
	Mentions    []graph.Mention
	Communities []graph.Community // with Members
	// NamedKeys counts the episodes read from a graph database without a record_key property
	// (written by Graphiti, or by a backfill before load-v4), whose name stands for their record
	// key.
	NamedKeys int
}

// Snapshot is a finished graph read group by group (see the package doc).
type Snapshot interface {
	// Groups yields the groups want accepts (nil: every group) in ascending id order. A read
	// error is yielded once, with a nil group, and ends the sequence.
	Groups(ctx context.Context, want func(id string) bool) iter.Seq2[*Group, error]
	// HasVersions reports whether Groups carry the fact version log.
	HasVersions() bool
	// Runs lists the recorded runs, oldest first (none for an export).
	Runs(ctx context.Context) ([]checkpoints.Run, error)
	// Kind says what kind of graph the snapshot reads (KindCheckpoint, KindExport, KindNeo4j, …).
	Kind() string
	// Describe names the snapshot for reports: its kind and where it is.
	Describe() string
	Close() error
}

// Open opens path as a Neo4j or Memgraph graph when it is a Bolt URI, as a FalkorDB graph when
// it is a redis:// or rediss:// URI (both without authentication; OpenBolt and OpenFalkorDB for
// more), as a Parquet export directory when it is a directory, else as a checkpoint store, which
// must exist.
func Open(ctx context.Context, path string) (Snapshot, error) {
	if IsBoltURI(path) {
		return OpenBolt(ctx, BoltOptions{URI: path})
	}
	if IsFalkorDBURI(path) {
		return OpenFalkorDB(ctx, FalkorDBOptions{URI: path})
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", path, err)
	}
	if st.IsDir() {
		return OpenParquet(path)
	}
	store, err := checkpoints.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	return OpenStore(store, true), nil
}

// ByID indexes a group's entities by uuid.
func (g *Group) ByID() map[string]*graph.Entity {
	out := make(map[string]*graph.Entity, len(g.Entities))
	for i := range g.Entities {
		out[g.Entities[i].UUID] = &g.Entities[i]
	}
	return out
}

// withoutUser is uri with the user information of its authority (what comes before "@" in the
// part after "://" and before the first "/") replaced by "…", so an error about a URI that does
// not parse cannot repeat a password.
func withoutUser(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	authority, path, _ := strings.Cut(rest, "/")
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return uri
	}
	out := scheme + "://…@" + authority[at+1:]
	if len(rest) > len(authority) {
		out += "/" + path
	}
	return out
}
