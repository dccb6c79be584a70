#!/usr/bin/env bash
# Usage: scripts/versitygw.sh start|stop|status|env|bucket NAME
#
# Runs the versitygw S3 gateway (posix backend on a fresh temporary directory) for integration
# tests and local s3:// checkpoints and sources on 127.0.0.1:$BACKFILL_S3_PORT (default 7070)
# with fixed root test credentials. "start" installs versitygw $VERSITYGW_VERSION with
# `go install` into the cache when it is absent, starts it in the background, waits until it
# answers HTTP and prints
#   export BACKFILL_S3_ENDPOINT=http://127.0.0.1:PORT
#   export BACKFILL_S3_ACCESS_KEY=... BACKFILL_S3_SECRET_KEY=... BACKFILL_S3_REGION=us-east-1
#   export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... AWS_REGION=us-east-1
#   export BACKFILL_S3_FLAGS='--set s3.endpoint=http://127.0.0.1:PORT --set s3.path_style=true'
# (each export on its line) so `eval "$(scripts/versitygw.sh start)"` works: the BACKFILL_S3_*
# lines are what internal/testenv reads, the AWS_* lines the credentials backfill's S3 client
# reads, and `backfill run JOB --checkpoint s3://BUCKET/KEY $BACKFILL_S3_FLAGS` keeps a job's
# store in the gateway. "bucket NAME" creates the bucket NAME unless it exists (idempotent), on
# the running gateway; with BACKFILL_S3_BUCKET=NAME, "start" creates it too. start and stop are
# idempotent; "env" prints the same lines for the running gateway.
#
# Environment: BACKFILL_S3_PORT, BACKFILL_S3_BUCKET, BACKFILL_CACHE_DIR (default <repo>/.cache).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSITYGW_MODULE="github.com/versity/versitygw/cmd/versitygw"
VERSITYGW_VERSION="v1.8.0"
BIN_DIR="$CACHE_DIR/bin/versitygw-$VERSITYGW_VERSION"
BIN="$BIN_DIR/versitygw"
STATE="$CACHE_DIR/versitygw"
PORT="${BACKFILL_S3_PORT:-7070}"
# Fixed root credentials: the gateway only ever listens on loopback and holds test data.
ACCESS_KEY="backfilltest"
SECRET_KEY="backfilltestsecret"
REGION="us-east-1"
START_TIMEOUT=30
MATCH="versitygw"

install_gw() {
  [ -x "$BIN" ] && return 0
  command -v go >/dev/null || die "go not found (needed to install versitygw)"
  log "installing $VERSITYGW_MODULE@$VERSITYGW_VERSION with go install (downloads and compiles it once; progress every ${BACKFILL_PROGRESS_SECONDS:-30} s)"
  mkdir -p "$BIN_DIR" "$STATE"
  # Run outside the repository so its go.mod plays no part; -v names each package compiled.
  with_progress "go install versitygw" "$STATE/install.log" go_step \
    env -C / GOBIN="$BIN_DIR" GOFLAGS=-buildvcs=false go install -v "$VERSITYGW_MODULE@$VERSITYGW_VERSION" ||
    { cat "$STATE/install.log" >&2; die "go install $VERSITYGW_MODULE@$VERSITYGW_VERSION failed"; }
}

print_env() {
  local endpoint="http://127.0.0.1:$(cat "$STATE/port")"
  cat <<ENV
export BACKFILL_S3_ENDPOINT=$endpoint
export BACKFILL_S3_ACCESS_KEY=$ACCESS_KEY
export BACKFILL_S3_SECRET_KEY=$SECRET_KEY
export BACKFILL_S3_REGION=$REGION
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=$REGION
export BACKFILL_S3_FLAGS='--set s3.endpoint=$endpoint --set s3.path_style=true'
ENV
}

# bucket NAME: creates the bucket NAME on the running gateway unless it exists. The request is
# signed with the gateway's root credentials by curl (--aws-sigv4), so no AWS tool is needed.
bucket() {
  local name=$1 code
  [[ "$name" =~ ^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$ ]] ||
    die "bucket $name: S3 wants 3 to 63 lowercase letters, digits, '.' and '-', starting and ending with a letter or digit"
  pid_alive "$STATE/pid" "$MATCH" || die "not running: $0 start first"
  local url="http://127.0.0.1:$(cat "$STATE/port")/$name"
  # The empty body's sha256: S3 wants the payload hash signed with the request.
  local sign=(--aws-sigv4 "aws:amz:$REGION:s3" --user "$ACCESS_KEY:$SECRET_KEY"
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  code=$(curl -s -o /dev/null -m 10 -w '%{http_code}' -I "${sign[@]}" "$url") || true
  if [ "$code" = 200 ]; then
    log "bucket $name exists"
    return 0
  fi
  code=$(curl -s -o "$STATE/bucket.out" -m 10 -w '%{http_code}' -X PUT "${sign[@]}" "$url") || true
  [ "$code" = 200 ] || { cat "$STATE/bucket.out" >&2; echo >&2; die "creating bucket $name: HTTP $code"; }
  log "created bucket $name (s3://$name/KEY for --checkpoint or sources[].path)"
}

# answers: true when the gateway returns any HTTP status on its port.
answers() {
  local code
  code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$PORT/" 2>/dev/null) || true
  [ -n "$code" ] && [ "$code" != "000" ]
}

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port"
  remove_data_dir "$STATE/data"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_S3_PORT"
  install_gw
  local data
  data=$(mktemp -d "${TMPDIR:-/tmp}/backfill-s3.XXXXXX")
  echo "$data" >"$STATE/data"
  # Credentials go through the environment, not argv, so they do not show in ps.
  ROOT_ACCESS_KEY_ID="$ACCESS_KEY" ROOT_SECRET_ACCESS_KEY="$SECRET_KEY" \
    spawn "$STATE/versitygw.log" "$STATE/pid" "$BIN" --port "127.0.0.1:$PORT" \
    --region "$REGION" --quiet posix "$data"
  echo "$PORT" >"$STATE/port"
  await_ready versitygw answers "$STATE/versitygw.log" "$START_TIMEOUT"
  log "ready on http://127.0.0.1:$PORT (pid $(cat "$STATE/pid"))"
  print_env
}

# start_bucket: start, then create $BACKFILL_S3_BUCKET when it is set.
start_bucket() {
  start
  [ -z "${BACKFILL_S3_BUCKET:-}" ] || bucket "$BACKFILL_S3_BUCKET"
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 20
  remove_data_dir "$STATE/data"
  rm -f "$STATE/port"
}

status() { report_status; }

case "${1:-}" in
start) start_bucket ;;
bucket)
  [ $# = 2 ] || die "usage: $0 bucket NAME"
  bucket "$2"
  ;;
stop) stop ;;
status) status ;;
env)
  pid_alive "$STATE/pid" "$MATCH" || die "not running"
  print_env
  ;;
*) die "usage: $0 start|stop|status|env|bucket NAME" ;;
esac
