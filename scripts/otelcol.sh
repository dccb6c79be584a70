#!/usr/bin/env bash
# Usage: scripts/otelcol.sh start|stop|status|env
#
# Runs an OpenTelemetry Collector for the tests of backfill's telemetry (tests/otel): the OTLP
# receiver of the core distribution on 127.0.0.1 (HTTP on $BACKFILL_OTELCOL_PORT, default 14318;
# gRPC on $BACKFILL_OTELCOL_GRPC_PORT, default 14317) and the contrib file exporter, which writes
# every batch of spans and of metrics it receives as a line of OTLP JSON into traces.jsonl and
# metrics.jsonl of a fresh temporary directory. "start" builds the collector once from the Go
# module testinfra/otelcol (collector v0.165.0, its go.sum pins and checksums every module; about
# 4 minutes on 2 cores with a cold build cache) into the cache, starts it in the background, waits
# until it answers OTLP/HTTP and prints
#   export BACKFILL_OTELCOL_ENDPOINT=http://127.0.0.1:PORT        (OTLP/HTTP)
#   export BACKFILL_OTELCOL_GRPC_ENDPOINT=http://127.0.0.1:PORT   (OTLP/gRPC)
#   export BACKFILL_OTELCOL_TRACES=DIR/traces.jsonl BACKFILL_OTELCOL_METRICS=DIR/metrics.jsonl
# so `eval "$(scripts/otelcol.sh start)"` works. start and stop are idempotent.
#
# Environment: BACKFILL_OTELCOL_PORT, BACKFILL_OTELCOL_GRPC_PORT, BACKFILL_CACHE_DIR (default
# <repo>/.cache).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SRC="$REPO_ROOT/testinfra/otelcol"
# The binary is keyed by the module's files, so a change of version or component rebuilds it.
KEY=$(cat "$SRC/go.mod" "$SRC/go.sum" "$SRC/main.go" | sha256sum | cut -c1-12)
BIN_DIR="$CACHE_DIR/bin/otelcol-$KEY"
BIN="$BIN_DIR/backfill-otelcol"
STATE="$CACHE_DIR/otelcol"
PORT="${BACKFILL_OTELCOL_PORT:-14318}"
GRPC_PORT="${BACKFILL_OTELCOL_GRPC_PORT:-14317}"
START_TIMEOUT=30
MATCH="backfill-otelcol"

install_col() {
  [ -x "$BIN" ] && return 0
  command -v go >/dev/null || die "go not found (needed to build the collector)"
  log "building the OpenTelemetry Collector of testinfra/otelcol (downloads and compiles it once, a few minutes; progress every ${BACKFILL_PROGRESS_SECONDS:-30} s)"
  mkdir -p "$BIN_DIR" "$STATE"
  # -mod=readonly: the build uses exactly the modules go.sum checksums; GOWORK=off keeps any
  # workspace out. -v names each package compiled.
  with_progress "go build otelcol" "$STATE/install.log" go_step \
    env -C "$SRC" GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" go build -v -trimpath -o "$BIN.tmp" . ||
    { cat "$STATE/install.log" >&2; die "building the collector failed"; }
  mv "$BIN.tmp" "$BIN"
}

# write_config DIR: the collector's configuration, receiving on loopback and writing into DIR.
write_config() {
  cat >"$STATE/config.yaml" <<CONFIG
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:$GRPC_PORT
      http:
        endpoint: 127.0.0.1:$PORT
exporters:
  file/traces:
    path: $1/traces.jsonl
    flush_interval: 100ms
  file/metrics:
    path: $1/metrics.jsonl
    flush_interval: 100ms
service:
  telemetry:
    logs:
      level: warn
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file/traces]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
CONFIG
}

print_env() {
  local data
  data=$(cat "$STATE/data")
  cat <<ENV
export BACKFILL_OTELCOL_ENDPOINT=http://127.0.0.1:$(cat "$STATE/port")
export BACKFILL_OTELCOL_GRPC_ENDPOINT=http://127.0.0.1:$(cat "$STATE/grpc_port")
export BACKFILL_OTELCOL_TRACES=$data/traces.jsonl
export BACKFILL_OTELCOL_METRICS=$data/metrics.jsonl
ENV
}

# answers: true when the OTLP/HTTP receiver returns any HTTP status.
answers() {
  local code
  code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' \
    "http://127.0.0.1:$PORT/v1/traces" 2>/dev/null) || true
  [ -n "$code" ] && [ "$code" != "000" ]
}

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port" "$STATE/grpc_port"
  remove_data_dir "$STATE/data"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_OTELCOL_PORT"
  port_open "$GRPC_PORT" && die "port $GRPC_PORT is already in use; set BACKFILL_OTELCOL_GRPC_PORT"
  install_col
  local data
  data=$(mktemp -d "${TMPDIR:-/tmp}/backfill-otelcol.XXXXXX")
  echo "$data" >"$STATE/data"
  write_config "$data"
  spawn "$STATE/otelcol.log" "$STATE/pid" "$BIN" --config "file:$STATE/config.yaml"
  echo "$PORT" >"$STATE/port"
  echo "$GRPC_PORT" >"$STATE/grpc_port"
  await_ready otelcol answers "$STATE/otelcol.log" "$START_TIMEOUT"
  log "ready on http://127.0.0.1:$PORT (gRPC $GRPC_PORT, pid $(cat "$STATE/pid"))"
  print_env
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 20
  remove_data_dir "$STATE/data"
  rm -f "$STATE/port" "$STATE/grpc_port"
}

status() { report_status; }

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env)
  pid_alive "$STATE/pid" "$MATCH" || die "not running"
  print_env
  ;;
*) die "usage: $0 start|stop|status|env" ;;
esac
