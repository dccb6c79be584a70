// Package ingest is the ingest stage: it streams the job's sources through the loaders into the
// checkpoint store in batches of rows (episodes upserted by record key), keeping only the groups
// of the run's shard (Shard). A row that cannot be read is quarantined: in the store's quarantine
// table (emptied at the start of each run) and in the JSON Lines file beside the store (written
// anew by each run through internal/safefile, in place when the stage ends), and logged. Each group id is recorded with the id the input wrote; a row that writes another
// group's mapped id verbatim is quarantined instead of joining that group. The stage fails once
// the quarantined share of the rows passes Options.MaxErrorRatio, and drains at a batch boundary
// when env.Stop closes (stages.ErrInterrupted). Its Result counts the rows that replaced an
// earlier row of the run and tallies the JSON records.
//
// Forgetting: a row whose episode a deletion forgot (checkpoints.Store.Forget), or a bad row
// whose quarantined text a deletion removed (checkpoints.Store.ForgottenRow), is skipped and
// counted (Result.Forgotten). Each episode is stored with its source's path (graph.Episode
// Origin). For a mirror source (Options.Mirror, sources[].sync: mirror), once every source is
// read the episodes of that source the run did not stage again are forgotten, one deletion per
// source (Result.Vanished); when more than Options.MaxVanishedRatio of a source's earlier
// episodes vanished the stage fails with a *VanishedError and forgets nothing, and a source
// with rows quarantined this run forgets nothing this run.
//
// The stage reads only its Env (store, clock, progress, log, stop) and Options. It declares the
// job's sources[] (Source: the loader's keys, the JSON record keys of package records, and sync;
// DeclareSources checks them) and its limits (Limits); jobs/pipeline makes its Options from them
// (the loader specs in the job's timezone with their record options compiled, the shard).
package ingest
