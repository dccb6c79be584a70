#!/usr/bin/env bash
# Usage: scripts/neo4j.sh start|stop|status|env|browser
#
# Runs embedded Neo4j Community 5.26 (testinfra/neo4j) for integration tests and local loads:
# Bolt on 127.0.0.1:$BACKFILL_NEO4J_PORT (default 7687), no authentication, a fresh database in a
# temporary directory per start. "start" builds the launcher jar when needed (Maven offline
# first, then online), starts it in the background, waits for its READY line and prints
#   export BACKFILL_NEO4J_URI=bolt://127.0.0.1:PORT
#   export BACKFILL_NEO4J_FLAGS='--set sink.kind=neo4j --set sink.uri=bolt://127.0.0.1:PORT'
# so `eval "$(scripts/neo4j.sh start)"` works and `backfill run JOB $BACKFILL_NEO4J_FLAGS` loads
# a job's graph into it. start and stop are idempotent; "env" prints the same lines for the
# running server.
#
# HTTP is off unless asked for: "browser" (or "start" with BACKFILL_NEO4J_HTTP=1) starts the
# server with its web server on 127.0.0.1:$BACKFILL_NEO4J_HTTP_PORT (default 7474), which serves
# Neo4j Browser (the neo4j-browser jar from Maven Central) and the HTTP query API, and also prints
#   export BACKFILL_NEO4J_BROWSER='http://127.0.0.1:HTTP/browser/?dbms=bolt://127.0.0.1:PORT&preselectAuthMethod=NO_AUTH'
# the page to open to look at the loaded graph (it connects without credentials). "browser" on a
# server started without HTTP says how to restart it (a restart empties the database).
#
# Environment: BACKFILL_NEO4J_PORT, BACKFILL_NEO4J_HTTP (1: serve HTTP), BACKFILL_NEO4J_HTTP_PORT,
# BACKFILL_NEO4J_START_TIMEOUT (seconds, default 180), BACKFILL_NEO4J_HEAP (default 1g),
# BACKFILL_CACHE_DIR (default <repo>/.cache), JAVA_HOME.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROJECT="$REPO_ROOT/testinfra/neo4j"
JAR="$PROJECT/target/neo4j-launcher.jar"
STATE="$CACHE_DIR/neo4j"
PORT="${BACKFILL_NEO4J_PORT:-7687}"
HTTP_PORT="${BACKFILL_NEO4J_HTTP_PORT:-7474}"
START_TIMEOUT="${BACKFILL_NEO4J_START_TIMEOUT:-180}"
HEAP="${BACKFILL_NEO4J_HEAP:-1g}"
MATCH="neo4j-launcher.jar"

java_bin() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    echo "$JAVA_HOME/bin/java"
  elif [ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ]; then
    echo /usr/lib/jvm/java-17-openjdk-amd64/bin/java
  else
    command -v java || die "java not found (Java 17+ is needed)"
  fi
}

# build_jar compiles the launcher unless the jar is newer than its pom and sources.
build_jar() {
  if [ -f "$JAR" ] && [ -d "$PROJECT/target/lib" ] &&
    [ -z "$(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$JAR" -print -quit)" ]; then
    return 0
  fi
  log "building $JAR"
  local mvn=(mvn -B -f "$PROJECT/pom.xml" package)
  if ! "${mvn[@]}" -q -o >"$STATE/build.log" 2>&1; then
    log "offline build failed; building online (downloads Neo4j and its dependencies from Maven Central into ~/.m2 once, about 170 MB; progress every ${BACKFILL_PROGRESS_SECONDS:-30} s)"
    with_progress "maven" "$STATE/build.log" maven_step "${mvn[@]}" || { cat "$STATE/build.log" >&2; die "maven build failed"; }
  fi
}

# maven_step LOG: how many files Maven has downloaded, and the last.
maven_step() {
  printf '%s files downloaded (last: %s)' "$(grep -c '^Downloaded from' "$1" || true)" \
    "$(grep '^Downloaded from' "$1" | tail -n1 | sed 's|.*/||')"
}

print_env() {
  local uri="bolt://127.0.0.1:$(cat "$STATE/port")"
  echo "export BACKFILL_NEO4J_URI=$uri"
  echo "export BACKFILL_NEO4J_FLAGS='--set sink.kind=neo4j --set sink.uri=$uri'"
  if [ -f "$STATE/http_port" ]; then
    echo "export BACKFILL_NEO4J_BROWSER='http://127.0.0.1:$(cat "$STATE/http_port")/browser/?dbms=$uri&preselectAuthMethod=NO_AUTH'"
  fi
}

# neo4j_ready: the launcher prints READY once the database accepts Bolt connections.
neo4j_ready() { grep -q '^READY' "$STATE/neo4j.log" 2>/dev/null; }

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port" "$STATE/http_port"
  remove_data_dir "$STATE/home"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_NEO4J_PORT"
  local http=()
  if [ "${BACKFILL_NEO4J_HTTP:-}" = 1 ]; then
    port_open "$HTTP_PORT" && die "port $HTTP_PORT is already in use; set BACKFILL_NEO4J_HTTP_PORT"
    http=("$HTTP_PORT")
  fi
  build_jar
  local home
  home=$(mktemp -d "${TMPDIR:-/tmp}/backfill-neo4j.XXXXXX")
  echo "$home" >"$STATE/home"
  spawn "$STATE/neo4j.log" "$STATE/pid" "$(java_bin)" "-Xmx$HEAP" -XX:+UseSerialGC \
    -jar "$JAR" "$home" "$PORT" "${http[@]}"
  echo "$PORT" >"$STATE/port"
  [ ${#http[@]} = 0 ] || echo "$HTTP_PORT" >"$STATE/http_port"
  await_ready neo4j neo4j_ready "$STATE/neo4j.log" "$START_TIMEOUT"
  log "ready on bolt://127.0.0.1:$PORT (pid $(cat "$STATE/pid"))"
  print_env
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 60
  remove_data_dir "$STATE/home"
  rm -f "$STATE/port" "$STATE/http_port"
}

# browser: the server with Neo4j Browser served (started so when it is not running).
browser() {
  if pid_alive "$STATE/pid" "$MATCH" && [ ! -f "$STATE/http_port" ]; then
    die "Neo4j runs without HTTP (pid $(cat "$STATE/pid")); to serve Neo4j Browser, restart it with HTTP (its database starts empty): $0 stop && $0 browser"
  fi
  BACKFILL_NEO4J_HTTP=1 start
  log "Neo4j Browser: http://127.0.0.1:$(cat "$STATE/http_port")/browser/ (connects to bolt://127.0.0.1:$(cat "$STATE/port") without credentials; the URL in BACKFILL_NEO4J_BROWSER fills the form in)"
}

status() { report_status; }

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
browser) browser ;;
env)
  pid_alive "$STATE/pid" "$MATCH" || die "not running"
  print_env
  ;;
*) die "usage: $0 start|stop|status|env|browser" ;;
esac
