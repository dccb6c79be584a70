package jobs

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
)

// Default names of the variables holding the sink credentials.
const (
	DefaultSinkUsernameEnv = "BACKFILL_SINK_USERNAME"
	DefaultSinkPasswordEnv = "BACKFILL_SINK_PASSWORD"
)

// SinkKinds are the values of sink.kind: sqlite (the checkpoint store only) and the graph
// databases.
var SinkKinds = []string{"sqlite", "memgraph", "neo4j", "falkordb"}

// GraphSink reports whether the job loads into a graph database (Memgraph, Neo4j or FalkorDB):
// its stages end with the load stage.
func (j *Job) GraphSink() bool {
	return j.Sink.Kind == "memgraph" || j.Sink.Kind == "neo4j" || j.Sink.Kind == "falkordb"
}

// DefaultFalkorDBURI is sink.uri's default for the falkordb sink (Bolt sinks default to
// bolt://127.0.0.1:7687).
const DefaultFalkorDBURI = "redis://127.0.0.1:6379"

func (j *Job) validateSink() error {
	switch j.Sink.Kind {
	case "sqlite":
	case "memgraph", "neo4j":
		u, err := url.Parse(j.Sink.URI)
		if err != nil || u.Host == "" || !strings.HasPrefix(u.Scheme, "bolt") && !strings.HasPrefix(u.Scheme, "neo4j") {
			return bad("sink.uri", "%q is not a bolt:// or neo4j:// URI", j.Sink.URI)
		}
		if u.User != nil {
			return bad("sink.uri", "must not hold credentials; name their variables in sink.username_env and sink.password_env")
		}
	case "falkordb":
		u, err := url.Parse(j.Sink.URI)
		if err != nil || u.Host == "" || u.Scheme != "redis" && u.Scheme != "rediss" {
			return bad("sink.uri", "%q is not a redis:// or rediss:// URI (FalkorDB speaks RESP)", j.Sink.URI)
		}
		if u.User != nil {
			return bad("sink.uri", "must not hold credentials; name their variables in sink.username_env and sink.password_env")
		}
		if j.Sink.Database != "" {
			return bad("sink.database", "the falkordb sink writes each group into the graph named after it; leave it empty")
		}
	default:
		return bad("sink.kind", "%q is not sqlite, memgraph, neo4j or falkordb", j.Sink.Kind)
	}
	if j.Sink.Analytical && j.Sink.Kind != "memgraph" {
		return bad("sink.analytical", "only the memgraph sink has an analytical mode")
	}
	// sink.indexes: a cypher.IndexMode ("" is the sink's default, cypher.DefaultIndexMode).
	mode, err := cypher.ParseIndexMode(j.Sink.Indexes)
	if err != nil {
		return bad("sink.indexes", "%v", err)
	}
	if mode == cypher.IndexesBackground && j.Sink.Kind != "neo4j" {
		return bad("sink.indexes", "background needs the neo4j sink (Memgraph builds every index as it creates it; sqlite has none)")
	}
	if _, err := graphdb.ParseForeign(j.Sink.Foreign); err != nil {
		return bad("sink.foreign", "%q is not keep or delete", j.Sink.Foreign)
	}
	if s := j.Sink.LeaseSecs; s != nil && *s < 3 {
		return bad("sink.lease_seconds", "%v is too short: the load renews its leases every third of it (at least 3; leave the key out for the default 120)", *s)
	}
	if e := j.S3.Endpoint; e != "" && !strings.HasPrefix(e, "http://") && !strings.HasPrefix(e, "https://") {
		return bad("s3.endpoint", "%q is not an http:// or https:// URL", e)
	}
	return nil
}

// SinkCredentials reads the sink's user and password from the variables the job names (or the
// default ones) in env. A variable the job names explicitly must be set; unset defaults mean no
// authentication.
func (j *Job) SinkCredentials(env LookupEnv) (user, password string, err error) {
	s := j.Sink
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
	if user, err = read("sink.username_env", s.UsernameEnv, DefaultSinkUsernameEnv); err != nil {
		return "", "", err
	}
	if password, err = read("sink.password_env", s.PasswordEnv, DefaultSinkPasswordEnv); err != nil {
		return "", "", err
	}
	return user, password, nil
}
