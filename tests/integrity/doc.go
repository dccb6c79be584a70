// Package integrity holds the data-integrity tests of the `backfill` binary (issue 12): each
// builds the real binary and runs it on a situation a new user may create by mistake, and
// requires that nothing is silently corrupted, mixed, skipped or crashed: two runs on one
// checkpoint, checkpoint paths with URI syntax in them, group ids that map to the same id,
// Parquet types and forged footers, ${VAR} values, inputs that cannot be read, stale
// quarantines, invalid job keys, store errors, interrupted exports, imports without a record,
// leap seconds and --set paths, links planted at <checkpoint>.lock, stores damaged in the middle,
// and a store on a network (FUSE) file system. Tests that need a read-only mount, a full disk or an
// unprivileged user get them from a user namespace (unshare) or by dropping root; they skip
// only where the machine offers neither. There is no library code here.
package integrity
