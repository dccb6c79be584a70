#!/usr/bin/env bash
# Usage: scripts/with_servers.sh CMD [ARGS...]
#
# Runs CMD with the integration-test servers up: starts each server of $BACKFILL_SERVERS
# (default "neo4j falkordb versitygw local_llm local_embed otelcol", see scripts/neo4j.sh,
# scripts/falkordb.sh, scripts/versitygw.sh, scripts/local_llm.sh, scripts/local_embed.sh and
# scripts/otelcol.sh) unless it already
# runs, exports the variables internal/testenv reads, runs CMD, and on exit (success, failure or
# interrupt) stops the servers it started itself. Exits with CMD's status.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

started=()
cleanup() {
  local s
  for s in "${started[@]}"; do
    "$REPO_ROOT/scripts/$s.sh" stop || log "stopping $s failed"
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for s in ${BACKFILL_SERVERS:-neo4j falkordb versitygw local_llm local_embed otelcol}; do
  if ! "$REPO_ROOT/scripts/$s.sh" status >/dev/null 2>&1; then
    started+=("$s")
  fi
  env_lines=$("$REPO_ROOT/scripts/$s.sh" start)
  eval "$env_lines"
done
"$@"
