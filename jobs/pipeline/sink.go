package pipeline

import (
	"fmt"

	"github.com/tkgraph/backfill/jobs"
)

// GraphSink reports whether the job loads into a graph database (Memgraph, Neo4j or FalkorDB):
// its stages end with the load stage.
func (j *Job) GraphSink() bool {
	return j.Sink.Kind == "memgraph" || j.Sink.Kind == "neo4j" || j.Sink.Kind == "falkordb"
}

// SinkCredentials reads the sink's user and password from the variables the job names (or the
// default ones) in env. A variable the job names explicitly must be set; unset defaults mean no
// authentication.
func (j *Job) SinkCredentials(env jobs.LookupEnv) (user, password string, err error) {
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
	if user, err = read("sink.username_env", s.UsernameEnv, jobs.DefaultSinkUsernameEnv); err != nil {
		return "", "", err
	}
	if password, err = read("sink.password_env", s.PasswordEnv, jobs.DefaultSinkPasswordEnv); err != nil {
		return "", "", err
	}
	return user, password, nil
}
