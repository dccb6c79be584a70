// Package records handles JSON business records (episodes of source json whose body is an
// object): field paths and glob patterns over them, pruning (sources[].json), the values of
// declared fact fields (sources[].facts) and change lists between two snapshots of one object.
//
// Paths are dotted object keys from the record's root ("issue.assignees[*].login"); arrays are
// traversed transparently, and "[*]" after a key only documents that its value is an array.
// Patterns add "*" inside a key (any run of characters) and "**" as a whole key (any number of
// keys). Everything here is a pure function of its input: the same record gives the same pruned
// JSON, values and change list.
package records
