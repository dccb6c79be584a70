// Package hostile holds the tests of issue 35 through the real `backfill` binary: hostile input
// and hostile neighbours. Each test is a class, checked on more than one example: records without
// an object and blank keys (no shared identity), empty values given to --set, ${VAR} and flags
// (an error naming the key, never the default), links planted where a command writes a file (the
// link's target stays as it was), numbers at their type's extremes and damaged input files (no
// crash, an error naming the flag or file), JSON bodies of hostile shape (quarantined with the
// bound), embedding answers that stay bad in every stage that embeds (failed units, exit 3, the
// next run completes them) and escape sequences in data (escaped in everything printed). There is
// no library code here.
package hostile
