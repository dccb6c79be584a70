package graphdb

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// Default names of the variables holding the sink credentials (sink.username_env,
// sink.password_env).
const (
	DefaultUsernameEnv = "BACKFILL_SINK_USERNAME"
	DefaultPasswordEnv = "BACKFILL_SINK_PASSWORD"
)

// Kinds are the values of sink.kind: sqlite (the checkpoint store only: nothing is loaded) and
// the graph databases.
var Kinds = []string{"sqlite", "memgraph", "neo4j", "falkordb"}

// Default URIs (sink.uri) of the Bolt sinks (memgraph, neo4j) and of the falkordb sink.
const (
	DefaultBoltURI     = "bolt://127.0.0.1:7687"
	DefaultFalkorDBURI = "redis://127.0.0.1:6379"
)

// Settings are the sink's keys as a job writes them (sink.*): what Options takes, in the job's
// words and units. A number left 0 is the loader's default.
type Settings struct {
	Kind        string  // sqlite (default: the checkpoint store) | memgraph | neo4j | falkordb
	URI         string  // bolt://host:port (default bolt://127.0.0.1:7687); falkordb: redis:// or rediss:// (default redis://127.0.0.1:6379)
	Database    string  // database name (default: the server's default); falkordb: none (each group is the graph of its name)
	UsernameEnv string  // variable holding the user (default BACKFILL_SINK_USERNAME; unset: no auth)
	PasswordEnv string  // variable holding the password (default BACKFILL_SINK_PASSWORD)
	BatchSize   int     // most rows per UNWIND transaction (default 2000)
	BatchBytes  int     // most bytes of rows per UNWIND transaction (default 2 MiB; 8 MiB on neo4j with indexes graphiti, the default, or background)
	Sessions    int     // groups loaded at once, one session each (default 2)
	Analytical  bool    // memgraph only: one-off migration in IN_MEMORY_ANALYTICAL mode
	Indexes     string  // neo4j: graphiti (default: Load returns with Graphiti's indexes online, the vector indexes populating) | online (every index online) | background (only the lookup indexes)
	MaxAttempts int     // tries per transaction on transient errors (default 10)
	RetrySecs   float64 // first backoff, doubled per try up to 10 s (default 0.2)

	// Sharing the graph with other writers (docs/living-graphs.md).
	Foreign   string   // keep (default: never delete or overwrite what another writer wrote) | delete (the loaded groups become what backfill writes)
	LeaseSecs *float64 // a group's lease in the database lasts this long unrenewed (default 120 when absent, at least 3)
	LeaseWait *float64 // wait this long for groups another load holds, then fail naming it (default 60; 0: fail at once)
}

// GraphSink reports whether the sink is a graph database (Memgraph, Neo4j or FalkorDB): a job's
// stages then end with the load stage.
func (k *Settings) GraphSink() bool {
	return k.Kind == "memgraph" || k.Kind == "neo4j" || k.Kind == "falkordb"
}

// Options are the loader's options of the job's sink keys (0 leaves the loader's own default):
// job names the loads in their leases, dims are the embedder's dimensions (the vector indexes).
func (k *Settings) Options(job string, dims int) Options {
	return Options{Dialect: cypher.Dialect(k.Kind), URI: k.URI, Database: k.Database, BatchSize: k.BatchSize,
		BatchBytes: k.BatchBytes, Sessions: k.Sessions, Analytical: k.Analytical, VectorDims: dims,
		Indexes: cypher.IndexMode(k.Indexes), Foreign: Foreign(k.Foreign), Job: job,
		LeaseTTL: optSeconds(k.LeaseSecs), LeaseWait: leaseWait(k.LeaseWait),
		MaxAttempts: k.MaxAttempts, RetryBase: seconds(k.RetrySecs)}
}

// seconds is a duration of s seconds.
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// optSeconds is a duration of *s seconds, 0 (the loader's default) for nil.
func optSeconds(s *float64) time.Duration {
	if s == nil {
		return 0
	}
	return seconds(*s)
}

// leaseWait is sink.lease_wait_seconds as the loader takes it: unset is its default, 0 fails at
// once (a negative wait).
func leaseWait(s *float64) time.Duration {
	switch {
	case s == nil:
		return 0
	case *s == 0:
		return -1
	}
	return seconds(*s)
}

// Credentials reads the sink's user and password from the variables the job names (or the
// default ones) in env. A variable the job names explicitly must be set; unset defaults mean no
// authentication.
func (s *Settings) Credentials(env func(string) (string, bool)) (user, password string, err error) {
	read := func(key, name, def string) (string, error) {
		if name == "" {
			v, _ := env(def)
			return v, nil
		}
		v, ok := env(name)
		if !ok {
			return "", fmt.Errorf("reading sink credentials: %s names %s, which is not set", key, name)
		}
		return v, nil
	}
	if user, err = read("sink.username_env", s.UsernameEnv, DefaultUsernameEnv); err != nil {
		return "", "", err
	}
	if password, err = read("sink.password_env", s.PasswordEnv, DefaultPasswordEnv); err != nil {
		return "", "", err
	}
	return user, password, nil
}

// Declare declares the sink's job keys (sink.*, but sink.reload, which the load stage declares)
// on k's fields.
func (k *Settings) Declare(s *options.Section) {
	s.String(&k.Kind, "kind", "`sqlite` (the checkpoint store only), `memgraph`, `neo4j` or `falkordb`: after the community "+
		"stage, the `load` stage writes the graph in the Graphiti schema, over Bolt (Memgraph, Neo4j) or RESP (FalkorDB, see "+
		"[FalkorDB specifics](docs/graph-databases.md#falkordb-specifics))", options.Default("sqlite"),
		options.Words(Kinds...))
	s.String(&k.URI, "uri", "Bolt URI; use `bolt://` for a standalone Memgraph; FalkorDB: `redis://` or `rediss://`; must "+
		"not hold credentials", options.DefaultText("`"+DefaultBoltURI+"`; falkordb: `"+DefaultFalkorDBURI+"`"))
	s.String(&k.Database, "database", "database name; must be empty for FalkorDB, where every group is the graph of its name",
		options.Empty("the server's default database"))
	s.String(&k.UsernameEnv, "username_env", "environment variable holding the user (when the default one is unset: no "+
		"authentication; a variable named explicitly must be set)", options.DefaultText("`"+DefaultUsernameEnv+"`"))
	s.String(&k.PasswordEnv, "password_env", "environment variable holding the password (as `username_env`)",
		options.DefaultText("`"+DefaultPasswordEnv+"`"))
	s.Int(&k.BatchSize, "batch_size", "most rows per `UNWIND` transaction, and per line of a CYPHERL export",
		options.DefaultText(fmt.Sprint(DefaultBatchSize)), options.Max(100_000))
	s.Int(&k.BatchBytes, "batch_bytes", "most bytes of rows as sent per `UNWIND` transaction, and per line of a CYPHERL export "+
		"(a row larger than the bound goes alone). Into Neo4j with `sink.indexes` graphiti, the default, or background, "+
		"no vector index is kept up to date during the load and 8 MiB measured faster. Rows with 1024-d embeddings are "+
		"about 9.5 KB, so the bytes bound them to about 220 (with Neo4j's vector indexes online during the load, 2 MiB "+
		"transactions took 15-25% less time than 4 MiB, see `bench/results.md`)",
		options.DefaultText(fmt.Sprintf("%d, %d MiB; %d, %d MiB, into Neo4j with indexes graphiti or background",
			DefaultBatchBytes, DefaultBatchBytes>>20, DefaultVectorsAfterBatchBytes, DefaultVectorsAfterBatchBytes>>20)), options.Max(256<<20))
	s.Int(&k.Sessions, "sessions", "groups loaded at once, each by its own worker and Bolt session. Groups share no node, so "+
		"their writes do not conflict; a job of one group writes with one session. On a quiet 2-core machine running Neo4j "+
		"two sessions reached 77-84% of the plain driver's ceiling with 1024-d embeddings and 52-62% without, against "+
		"68-84% and 41-47% with one (two runs); one was faster only when other work (a local model) loaded the same "+
		"cores: set 1 there, and raise it for a database server with spare cores. The rows held in memory grow with "+
		"`sink.sessions` × `sink.batch_bytes`: each session has one batch in flight and one filling per statement (a node "+
		"label set or relationship type), each bounded by `sink.batch_bytes`", options.DefaultText(fmt.Sprint(DefaultSessions)), options.Max(16))
	s.Bool(&k.Analytical, "analytical", "Memgraph one-off migrations: lookup indexes, uuid constraints dropped, `STORAGE MODE "+
		"IN_MEMORY_ANALYTICAL`, nodes, edges, `CREATE SNAPSHOT`, back to `IN_MEMORY_TRANSACTIONAL`, then the other indexes "+
		"and the constraints")
	s.String(&k.Indexes, "indexes", "Neo4j: which indexes are online when the load returns. `graphiti`: Graphiti's range and "+
		"full-text indexes, the ones its search reads (its vector search computes `vector.similarity.cosine` over a "+
		"group's rows and uses no vector index), are created after the last write and awaited; the vector indexes are "+
		"created after them and Neo4j populates them in the background (the report names those not online yet; Neo4j "+
		"5.26 holds a query through `db.index.vector.*` until its index is online). `online` returns when every index is "+
		"online: the vector indexes are created before the first write and kept up to date row by row, the range and "+
		"full-text indexes created after the last write and awaited. `background` awaits only the lookup indexes: every "+
		"other index is created after the last write and populated in the background (Neo4j holds a full-text query, so "+
		"Graphiti's search, until its index is online). With 1024-d embeddings, against the plain driver "+
		"(`bench/results.md`: the Bolt table; the quiet-machine runs that chose two sessions are in `git show "+
		"5e5b630:bench/results.md`, section issue-19-bolt-sessions): `graphiti` 77-84% of its rows/s, `online` 35-49%, "+
		"`background` 87-112%; the vector indexes then take about 12 s per 10,000 rows to come online, so `online` is "+
		"sooner to a graph searchable through them. Once the indexes exist (an incremental load) the modes do the same",
		options.DefaultText("`"+string(cypher.DefaultIndexMode)+"`"), options.Check(func() error {
			_, err := cypher.ParseIndexMode(k.Indexes)
			return err
		}))
	s.Int(&k.MaxAttempts, "max_attempts", "tries per write, read or schema transaction on a transient error (dropped "+
		"connection, server restarting, deadlock): with `retry_seconds` about 43 s in all and at least 21 s, longer than a "+
		"database restart. When the tries run out the run fails with exit 1; the groups verified before that stay "+
		"recorded and the next run loads the rest", options.DefaultText(fmt.Sprint(DefaultMaxAttempts)), options.Max(100))
	s.Float(&k.RetrySecs, "retry_seconds", "the first backoff after a transient error, doubled per try up to 10 s with ±50% "+
		"jitter", options.DefaultText(fmt.Sprint(DefaultRetryBase.Seconds())), options.Max(60))
	s.String(&k.Foreign, "foreign", "`keep`: a load never deletes or overwrites what it did not write; `delete`: every loaded "+
		"group becomes exactly what backfill writes, for a database only backfill writes (see [Living "+
		"graphs](docs/living-graphs.md))", options.DefaultText("`"+string(ForeignKeep)+"`"), options.Check(func() error {
		if _, err := ParseForeign(k.Foreign); err != nil {
			return fmt.Errorf("%q is not keep or delete", k.Foreign)
		}
		return nil
	}))
	s.OptFloat(&k.LeaseSecs, "lease_seconds", "a load holds a lease per group in the database while it writes: it lasts "+
		"this long unless renewed (renewed every third; a killed load's lease expires after it, or at once when that load "+
		"ran on the same host and its process is gone; below 3, `0` included, is an error)",
		options.DefaultText(fmt.Sprint(DefaultLeaseTTL.Seconds())), options.Max(86400), options.Check(func() error {
			if s := k.LeaseSecs; s != nil && *s < 3 {
				return fmt.Errorf("%v is too short: the load renews its leases every third of it (at least 3; leave the key "+
					"out for the default %v)", *s, DefaultLeaseTTL.Seconds())
			}
			return nil
		}))
	s.OptFloat(&k.LeaseWait, "lease_wait_seconds", "a load meeting another load's lease waits this long, then fails naming it "+
		"(host, pid, job, since when) (`0`: fail at once)", options.DefaultText(fmt.Sprint(DefaultLeaseWait.Seconds())), options.Max(86400))
	s.Defaults(func() {
		switch k.Kind {
		case "memgraph", "neo4j":
			setDefault(&k.URI, DefaultBoltURI)
		case "falkordb":
			setDefault(&k.URI, DefaultFalkorDBURI)
		}
	})
	s.Check(k.validate)
}

// setDefault sets *v to def when it is empty.
func setDefault(v *string, def string) {
	if *v == "" {
		*v = def
	}
}

// validate checks the sink's URI, database, analytical mode and index mode against its kind.
func (k *Settings) validate() error {
	switch k.Kind {
	case "memgraph", "neo4j":
		u, err := url.Parse(k.URI)
		if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "bolt") && !strings.HasPrefix(u.Scheme, "neo4j") {
			return options.Bad("uri", "%q is not a bolt:// or neo4j:// URI", k.URI)
		}
		if u.User != nil {
			return options.Bad("uri", "must not hold credentials; name their variables in sink.username_env and sink.password_env")
		}
	case "falkordb":
		u, err := url.Parse(k.URI)
		if err != nil || u.Host == "" || u.Scheme != "redis" && u.Scheme != "rediss" {
			return options.Bad("uri", "%q is not a redis:// or rediss:// URI (FalkorDB speaks RESP)", k.URI)
		}
		if u.User != nil {
			return options.Bad("uri", "must not hold credentials; name their variables in sink.username_env and sink.password_env")
		}
		if k.Database != "" {
			return options.Bad("database", "the falkordb sink writes each group into the graph named after it; leave it empty")
		}
	}
	if k.Analytical && k.Kind != "memgraph" {
		return options.Bad("analytical", "only the memgraph sink has an analytical mode")
	}
	if mode, _ := cypher.ParseIndexMode(k.Indexes); mode == cypher.IndexesBackground && k.Kind != "neo4j" {
		return options.Bad("indexes", "background needs the neo4j sink (Memgraph builds every index as it creates it; sqlite has none)")
	}
	return nil
}
