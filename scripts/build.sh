#!/usr/bin/env bash
# Usage: scripts/build.sh GO BIN LDFLAGS [GOFLAGS...]   (run by `make build`, from the repository root)
#
# Downloads the Go modules and builds BIN from ./cmd/backfill, saying what it does while it does
# it: on a cold Go cache the download fetches about 63 modules (171 MB) and the build compiles
# every package of the module graph and the standard library, which takes minutes on 2 cores; a
# progress line every BACKFILL_PROGRESS_SECONDS (30) seconds counts the modules fetched and the
# packages compiled. On a warm cache both take a second or two and print nothing. The commands'
# own output goes to $BACKFILL_CACHE_DIR/build/*.log (default .cache/); a failure prints it.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 3 ] || die "usage: $0 GO BIN LDFLAGS [GOFLAGS...]"
GO=$1 BIN=$2 LDFLAGS=$3
shift 3
ensure_cache
LOGS="$CACHE_DIR/build"
mkdir -p "$LOGS"

# fetched LOG: the modules `go mod download -x` has fetched so far.
fetched() { printf '%s modules fetched' "$(grep -c '\.zip: 200' "$1" || true)"; }

# compiled LOG: the packages `go build -v` has compiled so far, of the build's TOTAL.
TOTAL=
compiled() {
  printf '%s of %s packages compiled (now %s)' "$(grep -vc '^#\|: ' "$1" || true)" "${TOTAL:-?}" "$(tail -n1 "$1")"
}

# fail WHAT LOG: prints LOG without the lines of progress (fetches that succeeded, package names)
# and exits 1.
fail() {
  log "$1 failed; its output ($2):"
  grep -v -E '^# get .*(: 200 OK \(.*\)|\.(mod|zip|info))$|^[A-Za-z0-9._~/-]+$' "$2" >&2 || true
  exit 1
}

log "go mod download, go build -o $BIN ./cmd/backfill"

# -x prints each fetch, which is all `fetched` counts; nothing is fetched on a warm cache.
with_progress "go mod download" "$LOGS/mod-download.log" fetched "$GO" mod download -x ||
  fail "go mod download" "$LOGS/mod-download.log"
TOTAL=$("$GO" list -deps "$@" ./cmd/backfill 2>/dev/null | wc -l) || TOTAL=
# -v names each package as it is compiled (nothing when the build cache has it).
with_progress "go build" "$LOGS/build.log" compiled "$GO" build -v "$@" -ldflags "$LDFLAGS" -o "$BIN" ./cmd/backfill ||
  fail "go build" "$LOGS/build.log"
