// Package cli holds the tests of the `backfill` binary as a new user meets it (issue 18): every
// command's --help exits 0 with every flag described, --version names the module version, commit
// and build date, shell completion works, usage errors exit 2 without a spurious interrupt line,
// errors name a missing file once, scripts/demo.sh runs in a copy of the repository and every
// follow-up command it prints works as printed, and the README's llm-stub recipe runs as
// written. Each test runs the real binary, built once for the package. There is no library code
// here.
package cli
