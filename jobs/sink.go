package jobs

import (
	"fmt"
)

// Default names of the variables holding the sink credentials.
const (
	DefaultSinkUsernameEnv = "BACKFILL_SINK_USERNAME"
	DefaultSinkPasswordEnv = "BACKFILL_SINK_PASSWORD"
)

// GraphSink reports whether the job loads into a graph database (Memgraph, Neo4j or FalkorDB):
// its stages end with the load stage.
func (j *Job) GraphSink() bool {
	return j.Sink.Kind == "memgraph" || j.Sink.Kind == "neo4j" || j.Sink.Kind == "falkordb"
}

// DefaultFalkorDBURI is sink.uri's default for the falkordb sink (Bolt sinks default to
// bolt://127.0.0.1:7687).
const DefaultFalkorDBURI = "redis://127.0.0.1:6379"

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
