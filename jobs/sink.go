package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/memgraph"
	"github.com/tkgraph/backfill/stages"
)

// LoadStage is the name of the graph-database load in the store and in reports: one unit per
// group, whose fingerprint chains the group's community fingerprint with the sink's identity.
const LoadStage = stages.Load

// loaderVersion changes when the loader writes a group differently, so every group reloads
// (v2: embeddings stored as float32 arrays on Neo4j).
const loaderVersion = "load-v2"

// Default names of the variables holding the sink credentials.
const (
	DefaultSinkUsernameEnv = "BACKFILL_SINK_USERNAME"
	DefaultSinkPasswordEnv = "BACKFILL_SINK_PASSWORD"
)

// graphSink reports whether the job loads into Memgraph or Neo4j.
func (j *Job) graphSink() bool { return j.Sink.Kind == "memgraph" || j.Sink.Kind == "neo4j" }

func (j *Job) validateSink() error {
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("validating job: %s: %s", key, fmt.Sprintf(format, args...))
	}
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
	default:
		return bad("sink.kind", "%q is not sqlite, memgraph or neo4j", j.Sink.Kind)
	}
	if j.Sink.Analytical && j.Sink.Kind != "memgraph" {
		return bad("sink.analytical", "only the memgraph sink has an analytical mode")
	}
	if e := j.S3.Endpoint; e != "" && !strings.HasPrefix(e, "http://") && !strings.HasPrefix(e, "https://") {
		return bad("s3.endpoint", "%q is not an http:// or https:// URL", e)
	}
	return nil
}

// sinkCredentials reads the user and password from the variables the job names (or the
// default ones). A variable the job names explicitly must be set; unset defaults mean no
// authentication.
func sinkCredentials(s Sink, env LookupEnv) (user, password string, err error) {
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

// loadFingerprint is the load unit fingerprint of a group.
func loadFingerprint(j *Job, communityFP string) string {
	return stages.Fingerprint(communityFP, j.Sink.Kind, j.Sink.URI, j.Sink.Database,
		strconv.Itoa(j.Embedder.Dimensions), loaderVersion)
}

// runLoad writes the groups whose load fingerprint changed (all of them with sink.reload) into
// the job's graph database and records a load unit per group once it is verified.
func runLoad(ctx context.Context, j *Job, store *checkpoints.Store, opts RunOptions) (stages.Stats, *memgraph.Result, error) {
	start := time.Now()
	done, err := store.Fingerprints(ctx, LoadStage)
	if err != nil {
		return stages.Stats{}, nil, err
	}
	upstream, err := store.Fingerprints(ctx, stages.Upstream(LoadStage))
	if err != nil {
		return stages.Stats{}, nil, err
	}
	groups, err := store.Groups(ctx)
	if err != nil {
		return stages.Stats{}, nil, err
	}
	fps := map[string]string{}
	var todo []string
	var st stages.Stats
	for _, g := range groups {
		fps[g] = loadFingerprint(j, upstream[g])
		if !j.Sink.Reload && done[g] == fps[g] {
			st.Skipped++
			continue
		}
		todo = append(todo, g)
	}
	st.Units = len(todo)
	if len(todo) == 0 {
		st.Seconds = time.Since(start).Seconds()
		return st, nil, nil
	}
	user, password, err := sinkCredentials(j.Sink, opts.Env)
	if err != nil {
		return st, nil, err
	}
	l, err := memgraph.Open(ctx, memgraph.Options{Dialect: cypher.Dialect(j.Sink.Kind), URI: j.Sink.URI,
		Username: user, Password: password, Database: j.Sink.Database, BatchSize: j.Sink.BatchSize,
		BatchBytes: j.Sink.BatchBytes, Sessions: j.Sink.Sessions,
		Analytical: j.Sink.Analytical, VectorDims: j.Embedder.Dimensions, MaxAttempts: j.Sink.MaxAttempts,
		RetryBase: time.Duration(j.Sink.RetrySecs * float64(time.Second)), Progress: opts.Progress,
		Log: opts.Log, Stop: opts.Stop})
	if err != nil {
		return st, nil, err
	}
	defer l.Close(context.WithoutCancel(ctx))
	res, err := l.Load(ctx, GraphSource(j, store), todo, func(ctx context.Context, gs []string) error {
		for _, g := range gs {
			if err := store.CommitUnit(ctx, LoadStage, g, fps[g], nil); err != nil {
				return err
			}
		}
		return nil
	})
	st.Seconds = time.Since(start).Seconds()
	if errors.Is(err, memgraph.ErrStopped) {
		err = stages.ErrInterrupted
	}
	return st, &res, err
}
