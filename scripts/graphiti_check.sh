#!/usr/bin/env bash
# Usage: scripts/graphiti_check.sh   (run by `make graphiti-check`, inside scripts/with_servers.sh)
#
# Loads the demo graph with bin/backfill (offline provider) into the Neo4j at $BACKFILL_NEO4J_URI
# and into the FalkorDB at $BACKFILL_FALKORDB_URI (each one whose variable is set; at least one),
# serves the same hashing embeddings with `backfill llm-stub`, installs
# graphiti-core[falkordb] $GRAPHITI_VERSION from PyPI into $CACHE_DIR/venv, and runs Graphiti's
# own search on each graph (scripts/graphiti_check.py), which prints the facts it returns. With
# both servers it then compares the facts each query returned on Neo4j and on FalkorDB (as sets:
# the two full-text engines score differently) and prints the differences.
#
# Environment: BACKFILL_NEO4J_URI, BACKFILL_FALKORDB_URI, BACKFILL_BIN (default bin/backfill),
# GRAPHITI_VERSION (default 0.31.2), BACKFILL_STUB_PORT (default 8099), BACKFILL_CACHE_DIR.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

backends=()
[ -n "${BACKFILL_NEO4J_URI:-}" ] && backends+=(neo4j)
[ -n "${BACKFILL_FALKORDB_URI:-}" ] && backends+=(falkordb)
[ ${#backends[@]} -gt 0 ] || die 'start Neo4j or FalkorDB first: eval "$(scripts/neo4j.sh start)"; eval "$(scripts/falkordb.sh start)"'
PORT="${BACKFILL_STUB_PORT:-8099}"
DIMS=256
BIN="${BACKFILL_BIN:-$REPO_ROOT/bin/backfill}"

ensure_graphiti_venv

work=$(mktemp -d "${TMPDIR:-/tmp}/backfill-graphiti.XXXXXX")
stub_pid=""
cleanup() {
  if [ -n "$stub_pid" ]; then kill "$stub_pid" 2>/dev/null || true; wait "$stub_pid" 2>/dev/null || true; fi
  rm -rf -- "$work"
}
trap cleanup EXIT

cd "$REPO_ROOT"
start_llm_stub "$BIN" "$PORT" "$DIMS" "$work/stub.log"

for b in "${backends[@]}"; do
  uri=$BACKFILL_NEO4J_URI flag=()
  if [ "$b" = falkordb ]; then uri=$BACKFILL_FALKORDB_URI flag=(--falkordb); fi
  log "loading the demo graph into $b at $uri"
  "$BIN" run jobs/examples/demo.yaml --checkpoint "$work/demo-$b.db" --set "sink.kind=$b" \
    --set "sink.uri=$uri" --set sink.reload=true --set "embedder.dimensions=$DIMS" >&2
  echo "== graphiti-core $GRAPHITI_VERSION search on $b"
  EMBEDDER_BASE_URL="http://127.0.0.1:$PORT/v1" EMBEDDING_DIM="$DIMS" EMBEDDER_MODEL=hashing-v1 \
    "$VENV/bin/python" "$REPO_ROOT/scripts/graphiti_check.py" "${flag[@]}" "$@" | tee "$work/$b.out"
done

# facts FILE: one line per fact returned, prefixed by its query; sorted.
facts() {
  awk '/^query: /{q=$0; sub(/: [0-9]+ facts$/, "", q); next} /^  \[/{print q "\t" $0}' "$1" | sort
}
if [ ${#backends[@]} -eq 2 ]; then
  if diff <(facts "$work/neo4j.out") <(facts "$work/falkordb.out") >"$work/diff"; then
    echo "== the same facts on Neo4j and FalkorDB for every query"
  else
    echo "== facts that differ between Neo4j (<) and FalkorDB (>):"
    cat "$work/diff"
  fi
fi
