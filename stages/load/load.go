package load

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the graph-database load in the store and in reports: one unit per group,
// whose fingerprint chains the group's upstream (community) fingerprint with the sink's identity.
const Stage = stages.Load

// loaderVersion changes when the loader writes a group differently, so every group reloads
// (v2: embeddings stored as float32 arrays on Neo4j; v3: the loader records what it wrote and
// keeps what other writers wrote, so every group is loaded once to record it, and a message
// episode's content is "speaker: text", as Graphiti stores its own; v4: an Episodic node
// carries its record key and source position, record_key and seq, which eval and diff read).
const loaderVersion = "load-v4"

// Options of the stage.
type Options struct {
	// Sink is the loader's settings. Run sets its Username and Password from Credentials and its
	// Progress, Log and Stop from the Env, and its Observer to the Env's Observer when that is a
	// graphdb.Observer too (telemetry).
	Sink graphdb.Options
	// Reload loads every group, whether its fingerprint changed or not (sink.reload).
	Reload bool
	// Source is the graph as the sink reads it (the store under the job's record-time mode).
	Source sinks.Source
	// Credentials returns the sink's user and password; it is called only when a group is to be
	// loaded. Nil: no authentication.
	Credentials func() (user, password string, err error)
}

// key is the stage's part of its unit fingerprints (stages.Key): the sink's identity (dialect,
// URI, database, vector dimensions) and the loader's version.
func (o Options) key() string {
	k, _ := stages.Key(Stage, struct { // strings and an int: always encodes
		Dialect, URI, Database string
		VectorDims             int
		Loader                 string
	}{string(o.Sink.Dialect), o.Sink.URI, o.Sink.Database, o.Sink.VectorDims, loaderVersion})
	return k
}

// target names the sink target in the loader's ownership record (checkpoints.Store.EachOwned):
// its dialect, URI and database.
func (o Options) target() string {
	return string(o.Sink.Dialect) + " " + o.Sink.URI + " " + o.Sink.Database
}

// Fingerprint is the load unit fingerprint of a group whose upstream unit fingerprint is
// upstreamFP (stages.GroupFingerprint with the stage's key).
func (o Options) Fingerprint(upstreamFP string) string {
	return stages.GroupFingerprint(upstreamFP, o.key())
}

// Run writes the groups whose load fingerprint changed (all of them with Reload) into the graph
// database and records a load unit per group once it is verified. With nothing to load it
// neither reads the credentials nor connects. It returns the loader's result (nil when nothing
// was loaded).
func Run(ctx context.Context, env stages.Env, o Options) (stages.Stats, *graphdb.Result, error) {
	start := time.Now()
	store := env.Store
	done, err := store.Fingerprints(ctx, Stage)
	if err != nil {
		return stages.Stats{}, nil, err
	}
	upstream, err := store.Fingerprints(ctx, stages.Upstream(Stage))
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
		fps[g] = o.Fingerprint(upstream[g])
		if !o.Reload && done[g] == fps[g] {
			st.Skipped++
			continue
		}
		todo = append(todo, g)
	}
	if env.Observer != nil && st.Skipped > 0 {
		env.Observer.Units(ctx, Stage, stages.UnitSkipped, st.Skipped)
	}
	// A group loaded before that has no episode left (forgotten) is loaded empty: the loader
	// removes what the database holds of it, and its record goes.
	emptied := emptiedGroups(groups, done)
	todo = append(todo, emptied...)
	if len(todo) == 0 {
		st.Seconds = time.Since(start).Seconds()
		return st, nil, nil
	}
	sink := o.Sink
	if o.Credentials != nil {
		if sink.Username, sink.Password, err = o.Credentials(); err != nil {
			return st, nil, err
		}
	}
	sink.Progress, sink.Log, sink.Stop = env.Progress, env.Logger(), env.Stop
	if o, ok := env.Observer.(graphdb.Observer); ok { // telemetry watches the sink's batches too
		sink.Observer = o
	}
	sink.Owner = storeOwner{store: store, target: o.target()}
	// The groups about to be written lose their load record first: a load or reload that fails
	// leaves them unrecorded, so the next run loads them again instead of skipping them. An
	// emptied group keeps its record until the load removed it (the record is what says so).
	if err := store.DropUnits(ctx, Stage, todo[:len(todo)-len(emptied)]); err != nil {
		return st, nil, err
	}
	l, err := graphdb.Open(ctx, sink)
	if err != nil {
		return st, nil, err
	}
	defer l.Close(context.WithoutCancel(ctx))
	res, err := l.Load(ctx, o.Source, todo, func(ctx context.Context, gs []string) error {
		for _, g := range gs {
			if slices.Contains(emptied, g) {
				if err := store.DropUnit(ctx, Stage, g); err != nil {
					return err
				}
				continue
			}
			if err := store.CommitUnit(ctx, Stage, g, fps[g], nil); err != nil {
				return err
			}
		}
		st.Units += len(gs) // the groups recorded: a load stopped early counts what it committed
		if env.Observer != nil {
			env.Observer.Units(ctx, Stage, stages.UnitDone, len(gs))
		}
		return nil
	})
	st.Seconds = time.Since(start).Seconds()
	if errors.Is(err, graphdb.ErrStopped) {
		err = stages.ErrInterrupted
	}
	return st, &res, err
}

// emptiedGroups are the groups with a load record (done) and no episode (not in groups), sorted.
func emptiedGroups(groups []string, done map[string]string) []string {
	var out []string
	for g := range done {
		if _, ok := slices.BinarySearch(groups, g); !ok {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
