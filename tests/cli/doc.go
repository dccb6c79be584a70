// Package cli holds the tests of the `backfill` binary as a new user meets it (issues 18 and 36):
// every command's --help exits 0 with every flag described, --version names the module version,
// commit and build date, shell completion works, usage errors exit 2 without a spurious
// interrupt line, errors name a missing file once, `make demo` runs in a copy of the repository
// and every follow-up command it prints works as printed, every offline recipe of the README
// runs as written (TestREADMERecipes: the lines of its `sh` blocks and its inline `bin/backfill
// …` and `make demo` commands, except those marked `<!-- recipe: needs … -->`), and the README's
// llm-stub recipe runs on a free port. Each test runs the real binary, built once for the
// package; the recipes and the demo share one `make demo` in one copy of the repository. There
// is no library code here.
package cli
