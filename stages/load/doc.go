// Package load is the load stage: it writes the graph of the store into Memgraph, Neo4j or
// FalkorDB through the loader (sinks/graphdb), one unit per group. A group's fingerprint chains
// its upstream fingerprint (stages.Steps: community) with the sink's identity and the loader's
// version, so a group loads again when its graph, the sink or the loader changed, and every group
// with Reload.
// The groups to write lose their load record before the loader starts (a failed load or reload
// leaves them to the next run), except emptied groups, whose record says they are to be removed.
// The loader's ownership record (graphdb.Owner: what it wrote, per sink target and group) is the
// store's sink_owned table. A unit is committed once its group is written and verified; a stop (env.Stop) lets the chunk in
// flight finish and returns stages.ErrInterrupted. A group with a load record and no episode left
// in the store (all of it forgotten) is loaded empty, so the loader removes it from the database,
// and its record is dropped. With nothing to load the stage neither reads the credentials nor
// connects.
//
// The stage reads only its Env (store, progress, log, stop) and Options. The sink keys are
// declared by the loader (graphdb.Settings, which makes its Options), sink.reload here
// (DeclareReload); jobs/pipeline joins them with the embedder's dimensions, the credentials from
// the variables the job names and the store under the job's record-time mode.
package load
