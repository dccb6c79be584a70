#!/usr/bin/env bash
# Usage: scripts/fuzz.sh
#
# Fuzzes, each for FUZZ_SECONDS (default 5), the targets that read what the tool did not write:
# the input readers (loaders FuzzRead, FuzzMapping), the export tables (snapshots
# FuzzExportTable), the evaluation's dataset and gold files (evaluation FuzzReadDataset,
# FuzzReadGold) and the command line (cmd/backfill FuzzArgs). `make fuzz` runs it; `go test`
# (and so `make test`) runs the same targets on their seed corpora only. A failure leaves the
# input that broke the target under the package's testdata/fuzz/ and exits 1.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

SECONDS_EACH="${FUZZ_SECONDS:-5}"
case "$SECONDS_EACH" in '' | *[!0-9]* | 0) die "FUZZ_SECONDS must be a positive whole number of seconds, not '$SECONDS_EACH'" ;; esac
TARGETS=(
  ./loaders:FuzzRead
  ./loaders:FuzzMapping
  ./snapshots:FuzzExportTable
  ./evaluation:FuzzReadDataset
  ./evaluation:FuzzReadGold
  ./cmd/backfill:FuzzArgs
)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "${TARGETS[@]}"; do
  pkg="${t%%:*}" name="${t#*:}"
  # go test passes when -fuzz matches no target: a renamed target must fail here, not vanish.
  "${GO:-go}" test "$pkg" -list "^${name}\$" | grep -x "$name" >/dev/null || die "$pkg has no fuzz target $name (renamed? update TARGETS)"
  log "$name ($pkg) for ${SECONDS_EACH}s"
  "${GO:-go}" test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${SECONDS_EACH}s" -parallel 2 >"$out" 2>&1 ||
    { cat "$out" >&2; die "$name found an input that breaks it (see above and $pkg/testdata/fuzz/$name)"; }
done
