// Package jobs is the job spec: the generic loader of a job file over the keys its parts
// declare (package internal/options), and the job's own keys (Job: name, timezone,
// record_time). It knows no part of the pipeline: jobs/pipeline's Job declares every part's
// keys, each in the package that reads it, and is what Load and Parse load.
//
// Load parses the YAML, expands ${VAR} and ${VAR:-default} from the environment inside scalar
// values (never keys or comments; an unset variable is an error naming its line, one set but
// empty an error naming the key unless the key declares what empty means), rejects unknown keys
// (*KeyError: line, dotted path, the nearest declared key) and values of the wrong shape or type
// (*ValueError), applies --set overrides by dotted path (numbers index lists; a --set that
// cannot apply is a *SetError wrapping them), fills the declared defaults and validates the
// whole job: every number finite, not negative and within its declared maximum, then each
// key's words and checks and each section's checks, in declaration order.
package jobs
