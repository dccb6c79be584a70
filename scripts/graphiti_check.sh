#!/usr/bin/env bash
# Usage: scripts/graphiti_check.sh   (run by `make graphiti-check`, inside scripts/with_servers.sh)
#
# Loads the demo graph into the Neo4j at $BACKFILL_NEO4J_URI with bin/backfill (offline
# provider, neo4j sink), serves the same hashing embeddings with `backfill llm-stub`, installs
# graphiti-core $GRAPHITI_VERSION from PyPI into its venv in the user cache
# (scripts/graphiti_venv.sh), and runs Graphiti's own search on the graph
# (scripts/graphiti_check.py), which prints the facts it returns.
#
# Environment: BACKFILL_NEO4J_URI (required), GRAPHITI_VERSION (default 0.31.2),
# BACKFILL_STUB_PORT (default 8099), BACKFILL_CACHE_DIR.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${BACKFILL_NEO4J_URI:?start Neo4j first: eval \"\$(scripts/neo4j.sh start)\"}"
GRAPHITI_VERSION="${GRAPHITI_VERSION:-0.31.2}"
PORT="${BACKFILL_STUB_PORT:-8099}"
DIMS=256
BIN="$REPO_ROOT/bin/backfill"

ensure_cache
PY=$(GRAPHITI_VERSION="$GRAPHITI_VERSION" "$REPO_ROOT/scripts/graphiti_venv.sh")

work=$(mktemp -d "${TMPDIR:-/tmp}/backfill-graphiti.XXXXXX")
stub_pid=""
cleanup() {
  if [ -n "$stub_pid" ]; then kill "$stub_pid" 2>/dev/null || true; wait "$stub_pid" 2>/dev/null || true; fi
  rm -rf -- "$work"
}
trap cleanup EXIT

cd "$REPO_ROOT"
log "loading the demo graph into $BACKFILL_NEO4J_URI"
"$BIN" run jobs/examples/demo.yaml --checkpoint "$work/demo.db" --set sink.kind=neo4j \
  --set "sink.uri=$BACKFILL_NEO4J_URI" --set sink.reload=true --set "embedder.dimensions=$DIMS" >&2

port_open "$PORT" && die "port $PORT is in use; set BACKFILL_STUB_PORT"
"$BIN" llm-stub --addr "127.0.0.1:$PORT" --dims "$DIMS" 2>"$work/stub.log" &
stub_pid=$!
for ((i = 0; i < 100; i++)); do
  port_open "$PORT" && break
  sleep 0.1
done
port_open "$PORT" || { cat "$work/stub.log" >&2; die "llm-stub did not start"; }

EMBEDDER_BASE_URL="http://127.0.0.1:$PORT/v1" EMBEDDING_DIM="$DIMS" EMBEDDER_MODEL=hashing-v1 \
  "$PY" "$REPO_ROOT/scripts/graphiti_check.py" "$@"
