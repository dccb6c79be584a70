// Package jobs is the job spec. A job is a YAML file (Job): its sources and field mapping,
// timezone, record-time mode, LLM and embedder settings, ontology, stage options, sink and limits.
// Load parses the YAML, expands ${VAR} and ${VAR:-default} from the environment inside scalar
// values (never keys or comments; an unset variable is an error naming its line), rejects unknown
// keys (*KeyError: line, dotted path, the nearest known key) and values of the wrong shape or type
// (*ValueError) on the parsed tree, applies --set overrides by dotted path (numbers index lists; a
// --set that cannot apply is a *SetError wrapping them), fills defaults (once: a key whose
// default belongs to the code that reads it, the sink's batch sizes and retries or a stage's
// options, stays zero and means that default) and validates the whole job: every numeric key
// finite, not negative and within its maximum (maxima), ontology names unique identifiers, each
// source's loader settings, the stage options a stage validates itself.
//
// What runs a job lives beside it: jobs/pipeline turns a job into its stages and clients (the one
// place), jobs/runner runs them, jobs/planner plans them; the run report is package report.
// SourceFS is where a job's sources are read (local paths and s3://).
//
// sources[].sync (append or mirror, SyncAppend, SyncMirror) and limits.max_vanished_ratio say
// how a mirror source's vanished rows are forgotten; jobs/runner's Forget forgets by selection.
package jobs
