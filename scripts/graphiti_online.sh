#!/usr/bin/env bash
# Usage: scripts/graphiti_online.sh SCRIPT.json   (run by tests/living)
#
# Plays the online engine on a graph backfill loaded into the Neo4j at $BACKFILL_NEO4J_URI:
# graphiti-core $GRAPHITI_VERSION's own add_episode writes one episode into a group, its LLM
# answers scripted by SCRIPT.json (scripts/graphiti_online.py) and its embeddings served by
# `backfill llm-stub` (the offline run's hashing embedder). Prints what Graphiti wrote as JSON.
#
# Environment: BACKFILL_NEO4J_URI, BACKFILL_BIN (default bin/backfill), GRAPHITI_VERSION (default
# 0.31.2), BACKFILL_STUB_PORT (default 8099), EMBEDDING_DIM (default 256), BACKFILL_CACHE_DIR.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -eq 1 ] || die "usage: $0 SCRIPT.json"
[ -n "${BACKFILL_NEO4J_URI:-}" ] || die 'start Neo4j first: eval "$(scripts/neo4j.sh start)"'
PORT="${BACKFILL_STUB_PORT:-8099}"
DIMS="${EMBEDDING_DIM:-256}"
BIN="${BACKFILL_BIN:-$REPO_ROOT/bin/backfill}"

ensure_graphiti_venv

work=$(mktemp -d "${TMPDIR:-/tmp}/backfill-graphiti-online.XXXXXX")
stub_pid=""
cleanup() {
  if [ -n "$stub_pid" ]; then kill "$stub_pid" 2>/dev/null || true; wait "$stub_pid" 2>/dev/null || true; fi
  rm -rf -- "$work"
}
trap cleanup EXIT

start_llm_stub "$BIN" "$PORT" "$DIMS" "$work/stub.log"
EMBEDDER_BASE_URL="http://127.0.0.1:$PORT/v1" EMBEDDING_DIM="$DIMS" EMBEDDER_MODEL=hashing-v1 \
  "$VENV/bin/python" "$REPO_ROOT/scripts/graphiti_online.py" "$1"
