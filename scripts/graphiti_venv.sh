#!/usr/bin/env bash
# Usage: scripts/graphiti_venv.sh   (prints the venv's python on stdout)
#
# Installs graphiti-core $GRAPHITI_VERSION (default 0.31.2) from PyPI with pip into its own venv
# in the user's cache, not in the clone, so a fresh clone (CI's) reuses it:
#   ${XDG_CACHE_HOME:-~/.cache}/backfill/graphiti-VERSION/venv
# and prints the path of the venv's python. Idempotent; a lock keeps two callers (a test and
# `make eval-graphiti`) from installing at once. Used by scripts/graphiti_check.sh,
# scripts/eval_graphiti.sh and tests/graphiti.
#
# Environment: GRAPHITI_VERSION, XDG_CACHE_HOME, PYTHON (default python3).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION="${GRAPHITI_VERSION:-0.31.2}"
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/backfill/graphiti-$VERSION"
VENV="$DIR/venv"
PY="${PYTHON:-python3}"

# installed: the venv has graphiti-core VERSION and httpx (which graphiti-core imports without
# declaring it; openai releases that moved to httpx2 no longer bring it along).
installed() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$VERSION" <<'PY' >/dev/null 2>&1
import importlib.metadata as m, sys
import httpx, graphiti_core  # noqa: F401
sys.exit(0 if m.version("graphiti-core") == sys.argv[1] else 1)
PY
}

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9
if ! installed; then
  log "installing graphiti-core==$VERSION into $VENV (log: $DIR/install.log)"
  rm -rf "$VENV"
  { "$PY" -m venv "$VENV" && "$VENV/bin/pip" install --no-input -q "graphiti-core==$VERSION" httpx; } >"$DIR/install.log" 2>&1 ||
    { tail -n 20 "$DIR/install.log" >&2; die "installing graphiti-core==$VERSION failed"; }
  installed || die "graphiti-core==$VERSION does not import from $VENV (log: $DIR/install.log)"
fi
echo "$VENV/bin/python"
