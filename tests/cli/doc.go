// Package cli holds the tests of the `backfill` binary as a new user meets it (issues 18, 36 and
// 46): every command's --help exits 0 with every flag described, --version names the module
// version, commit and build date, shell completion works, usage errors exit 2 without a spurious
// interrupt line, errors name a missing file once, `make demo` runs in a copy of the repository
// and every follow-up command it prints works as printed, every recipe of the README and of the
// guides under docs/ runs as written (TestDocsRecipes: the lines of their `sh` blocks and their
// inline `bin/backfill …` and `make demo` commands, page by page in the order of docs/README.md,
// except those marked `<!-- recipe: needs … -->` or run by another test; blocks marked
// `<!-- recipe: uses SERVER -->` against that integration server), the getting-started guide runs
// in a copy with no ../shared and no LOCOMO (TestGettingStartedNewcomer), and the docs' llm-stub
// recipe runs on a free port. Each test runs the real binary, built once for the package; the
// pages' recipes start from copies of the one `make demo` run. There is no library code here.
package cli
