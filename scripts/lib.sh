# shellcheck shell=bash
# Shared helpers for scripts/neo4j.sh, scripts/falkordb.sh, scripts/versitygw.sh,
# scripts/local_llm.sh, scripts/otelcol.sh and scripts/build.sh: the state directory, pid files, waiting for a server,
# stopping it, and progress lines while a long install or build works. Sourced, never run. All
# messages go to stderr so that a script's stdout carries only the "export VAR=value" lines meant
# for eval.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Everything the scripts build, install or record lives under one cache directory.
CACHE_DIR="${BACKFILL_CACHE_DIR:-$REPO_ROOT/.cache}"

log() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; }
die() { log "$*"; exit 1; }

# ensure_cache creates the cache directory and a .gitignore that keeps it out of git.
ensure_cache() {
  mkdir -p "$CACHE_DIR"
  [ -f "$CACHE_DIR/.gitignore" ] || printf '*\n' >"$CACHE_DIR/.gitignore"
}

# pid_alive PIDFILE WORD: true when PIDFILE names a live process whose command line contains WORD
# (so a recycled pid of an unrelated process does not count).
pid_alive() {
  local pidfile=$1 word=$2 pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$word"
}

# port_open PORT: true when something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# stop_pid PIDFILE WORD TIMEOUT_SECONDS: SIGTERM the recorded process, wait for it to exit, and
# SIGKILL it if it outlives the timeout. Removes the pid file. Succeeds when nothing was running.
stop_pid() {
  local pidfile=$1 word=$2 timeout=$3 pid i
  if pid_alive "$pidfile" "$word"; then
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < timeout * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid did not stop within ${timeout}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}

# spawn LOGFILE PIDFILE CMD...: start CMD detached (own session, stdin closed, output to LOGFILE)
# and record its pid. The child writes its own pid before exec, so the file names CMD's process
# whether or not setsid had to fork.
spawn() {
  local logfile=$1 pidfile=$2 i
  shift 2
  rm -f "$pidfile"
  # shellcheck disable=SC2016 # $$ and $@ are expanded by the child shell
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" </dev/null >"$logfile" 2>&1 &
  for ((i = 0; i < 50; i++)); do
    [ -s "$pidfile" ] && return 0
    sleep 0.1
  done
  die "could not start $1"
}

# await_ready NAME CHECK LOGFILE SECONDS: runs the command CHECK every 0.1 s until it succeeds,
# for at most SECONDS of wall time (a slow CHECK counts), while the process of $STATE/pid (command
# line matching $MATCH) lives. Returns 0 once CHECK succeeds; otherwise prints LOGFILE's tail,
# runs the script's stop and dies saying whether the server timed out or exited.
await_ready() {
  local name=$1 check=$2 logfile=$3 seconds=$4
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    "$check" && return 0
    pid_alive "$STATE/pid" "$MATCH" || break
    sleep 0.1
  done
  local why="did not become ready within ${seconds}s"
  pid_alive "$STATE/pid" "$MATCH" || why="exited before it was ready"
  tail -n 40 "$logfile" >&2 || true
  stop
  die "$name $why (log above)"
}

# report_status [NOTE]: logs whether the server of $STATE/pid (matching $MATCH) runs, with its pid,
# its port and NOTE, and prints its environment (print_env); returns 1 when it is stopped.
report_status() {
  if pid_alive "$STATE/pid" "$MATCH"; then
    log "running (pid $(cat "$STATE/pid"), port $(cat "$STATE/port")${1:+, $1})"
    print_env
  else
    log "stopped${1:+ ($1)}"
    return 1
  fi
}

# already_running: when the server of $STATE/pid (matching $MATCH) runs, logs so with its pid
# and port, prints its environment (print_env) and succeeds; fails when it is not running. A
# start begins with `already_running && return 0`, which makes it idempotent.
already_running() {
  pid_alive "$STATE/pid" "$MATCH" || return 1
  log "already running (pid $(cat "$STATE/pid"), port $(cat "$STATE/port"))"
  print_env
}

# remove_data_dir FILE: delete the temporary directory whose path FILE records, then FILE.
remove_data_dir() {
  local file=$1 dir
  [ -f "$file" ] || return 0
  dir=$(cat "$file")
  case "$dir" in
  */backfill-*) rm -rf -- "$dir" ;;
  esac
  rm -f "$file"
}

# ensure_graphiti_venv: installs graphiti-core[falkordb]==$GRAPHITI_VERSION (default 0.31.2) from
# PyPI into $CACHE_DIR/venv unless it is there, and sets VENV.
ensure_graphiti_venv() {
  GRAPHITI_VERSION="${GRAPHITI_VERSION:-0.31.2}"
  VENV="$CACHE_DIR/venv"
  ensure_cache
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV"
    python3 -m venv "$VENV"
  fi
  if [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("graphiti-core"))' 2>/dev/null)" != "$GRAPHITI_VERSION" ] ||
    ! "$VENV/bin/python" -c 'import falkordb' 2>/dev/null; then
    log "installing graphiti-core[falkordb]==$GRAPHITI_VERSION"
    "$VENV/bin/pip" install -q "graphiti-core[falkordb]==$GRAPHITI_VERSION" >&2
  fi
  # graphiti-core imports httpx without declaring it; openai releases that moved to httpx2 no
  # longer bring it along.
  if ! "$VENV/bin/python" -c 'import httpx' 2>/dev/null; then
    log "installing httpx"
    "$VENV/bin/pip" install -q httpx >&2
  fi
}

# start_llm_stub BIN PORT DIMS LOGFILE: starts `BIN llm-stub` (the offline responder's hashing
# embeddings, DIMS dimensions) on 127.0.0.1:PORT in the background, sets stub_pid and waits until
# it accepts connections. The caller kills $stub_pid when done.
start_llm_stub() {
  local bin=$1 port=$2 dims=$3 logfile=$4 i
  port_open "$port" && die "port $port is in use; set BACKFILL_STUB_PORT"
  "$bin" llm-stub --addr "127.0.0.1:$port" --dims "$dims" 2>"$logfile" &
  stub_pid=$!
  for ((i = 0; i < 100; i++)); do
    port_open "$port" && return 0
    sleep 0.1
  done
  cat "$logfile" >&2
  die "llm-stub did not start"
}

# go_step LOG: a with_progress DESCRIBE for `go install -v` and `go build -v`: the packages
# compiled so far and the last, or what it does before (module downloads; none when its build
# cache has every package, and then it links).
go_step() {
  local n
  n=$(grep -vc ': ' "$1" || true)
  if [ "$n" = 0 ]; then
    printf '%s' "$(tail -n1 "$1" | grep . || echo 'fetching modules or linking')"
    return
  fi
  printf '%s packages compiled (now %s)' "$n" "$(tail -n1 "$1")"
}

# with_progress WHAT LOGFILE DESCRIBE CMD...: runs CMD with its output in LOGFILE and, while it
# runs, logs "WHAT: N s so far, <DESCRIBE LOGFILE>" every BACKFILL_PROGRESS_SECONDS (30) seconds,
# so that a cold install or build that takes minutes says what it is doing. DESCRIBE is a command
# that prints one short line from the log (the last compile step, a count); once a line was
# logged, the end is logged too ("WHAT: done in N s" or "failed after N s"). Nothing is logged when
# CMD ends sooner. An interrupt or SIGTERM stops CMD too and exits 130. Returns CMD's status.
with_progress() {
  local what=$1 logfile=$2 describe=$3 every=${BACKFILL_PROGRESS_SECONDS:-30} pid rc=0 traps
  shift 3
  traps=$(trap -p INT TERM)
  "$@" >"$logfile" 2>&1 &
  pid=$!
  # shellcheck disable=SC2064 # the pid is expanded now, on purpose
  trap "kill -TERM $pid 2>/dev/null; exit 130" INT TERM
  local start=$SECONDS next=$((SECONDS + every))
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    if ((SECONDS >= next)); then
      log "$what: $((SECONDS - start)) s so far, $("$describe" "$logfile" 2>/dev/null | cut -c1-160)"
      next=$((SECONDS + every))
    fi
  done
  wait "$pid" || rc=$?
  trap - INT TERM
  eval "$traps"
  if ((SECONDS - start >= every)); then
    if [ "$rc" = 0 ]; then log "$what: done in $((SECONDS - start)) s"; else log "$what: failed after $((SECONDS - start)) s"; fi
  fi
  return "$rc"
}
