#!/usr/bin/env bash
# Usage: scripts/eval_graphiti.sh [build|score|all]   (make eval-graphiti: all; not in CI)
#
# The same-model side by side of backfill and graphiti-core (issue 34): the gold set
# (jobs/examples/gold.yaml's examples/gold/*.jsonl) and the LoCoMo slice of `make eval-local`
# (the first conversation's first EVAL_LOCOMO_SESSIONS sessions, scripts/locomo_slice.py),
# built with Qwen2.5-Coder-1.5B on the local model server (scripts/local_llm.sh) by
#   - backfill: scripts/eval_local.sh (its offline and model runs, with EVAL_SET), and
#   - graphiti-core $GRAPHITI_VERSION (scripts/graphiti_venv.sh: its own venv in the user cache)
#     with add_episode and with add_episode_bulk (scripts/eval_graphiti.py, through the counting
#     shim scripts/graphiti_shim.py, which says what it changes in a request), each run into a
#     Neo4j of its own (testinfra/neo4j's launcher, Bolt on 127.0.0.1:EVAL_GRAPHITI_NEO4J_PORT,
#     its files in OUT/RUN/neo4j, kept), embeddings from the local embedding model
#     (scripts/local_embed.sh: all-MiniLM-L6-v2, 384 dimensions; backfill's runs and every score
#     use it too).
# Then every graph is scored by the same `backfill eval` (the gold set with --gold, the slice with
# --dataset locomo; a Graphiti graph read over Bolt as JOB@bolt://…), and the table goes into
# bench/results.md between the eval-graphiti marker lines.
#
# build makes the model runs that are missing (the model takes hours on 2 cores; a run whose
# summary says it is complete is kept, an interrupted one resumes where it stopped: backfill from
# its checkpoint, Graphiti from its progress file and its Neo4j); score scores them and writes
# the section; all does both. Runs in EVAL_GRAPHITI_RUNS order (default "backfill-locomo
# locomo-bulk backfill-gold gold-bulk locomo-add_episode gold-add_episode": the cheaper first, so
# that complete pairs come early; backfill-KIND is eval_local.sh's offline and model runs of that
# input).
#
# score may run while build does: a run being built is read through its own server, the others
# through a server on the next port.
#
# Environment: EVAL_GRAPHITI_OUT (work directory, default .backfill/eval-graphiti),
# EVAL_GRAPHITI_RUNS, EVAL_GRAPHITI_NEO4J_PORT (default 7701; score also uses the next port), EVAL_BIN (the backfill binary of the runs, default bin/backfill; the scores always use
# bin/backfill), EVAL_SET (default "--set llm.frequency_penalty=0.5", also the shim's
# frequency_penalty), EVAL_GOLD_GROUPS (words: only these groups of the gold set, on every side
# and in every gold score; default all), EVAL_LOCOMO, EVAL_LOCOMO_SESSIONS (default 2), EVAL_RESULTS (default
# bench/results.md), GRAPHITI_VERSION, BACKFILL_LOCAL_LLM_MODEL (default qwen2.5-coder-1.5b)
# and those of scripts/local_llm.sh (keep BACKFILL_LOCAL_LLM_THREADS at 2).
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

PHASE="${1:-all}"
OUT="${EVAL_GRAPHITI_OUT:-.backfill/eval-graphiti}"
RUNS="${EVAL_GRAPHITI_RUNS:-backfill-locomo locomo-bulk backfill-gold gold-bulk locomo-add_episode gold-add_episode}"
NEO4J_PORT="${EVAL_GRAPHITI_NEO4J_PORT:-7701}"
SCORE_PORT=$((NEO4J_PORT + 1)) # score's own server, beside a build that may be running
export EVAL_SET="${EVAL_SET:---set llm.frequency_penalty=0.5}"
export EVAL_LOCOMO="${EVAL_LOCOMO:-../shared/datasets/locomo/locomo10.json}"
export EVAL_LOCOMO_SESSIONS="${EVAL_LOCOMO_SESSIONS:-2}"
export BACKFILL_LOCAL_LLM_MODEL="${BACKFILL_LOCAL_LLM_MODEL:-qwen2.5-coder-1.5b}"
RUN_BIN="${EVAL_BIN:-bin/backfill}"
BIN=bin/backfill
JAR=testinfra/neo4j/target/neo4j-launcher.jar
GOLD_JOB=jobs/examples/gold.yaml
GOLD=examples/gold/gold.yaml
PENALTY=$(sed -n 's/.*llm\.frequency_penalty=\([0-9.]*\).*/\1/p' <<<"$EVAL_SET")
case "$PHASE" in build | score | all) ;; *) die "usage: $0 [build|score|all]" ;; esac
[ -x "$BIN" ] && [ -x "$RUN_BIN" ] || die "no $BIN or $RUN_BIN (make build)"
[ -f "$EVAL_LOCOMO" ] || die "no LoCoMo file $EVAL_LOCOMO (set EVAL_LOCOMO)"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SLICE="$OUT/locomo-slice.json" # outside the clone when OUT is (the dataset's licence)
python3 scripts/locomo_slice.py "$EVAL_LOCOMO" "$EVAL_LOCOMO_SESSIONS" "$SLICE"
# The gold set's input: all of it, or the groups of EVAL_GOLD_GROUPS (scripts/gold_slice.py
# writes their rows, their gold facts and a job reading them into OUT/gold-slice).
GOLD_GROUPS="${EVAL_GOLD_GROUPS:-}"
GOLD_IN=(examples/gold/conversations.jsonl examples/gold/records.jsonl)
if [ -n "$GOLD_GROUPS" ]; then
  python3 scripts/gold_slice.py "$GOLD_GROUPS" "$OUT/gold-slice" || die "EVAL_GOLD_GROUPS: no slice of the gold set"
  GOLD_JOB="$OUT/gold-slice/job.yaml" GOLD="$OUT/gold-slice/gold.yaml"
  GOLD_IN=("$OUT/gold-slice/conversations.jsonl" "$OUT/gold-slice/records.jsonl")
fi

neo4j_pid="" started_llm=0 started_embed=0
cleanup() {
  stop_neo4j
  if [ "$started_embed" = 1 ]; then scripts/local_embed.sh stop; fi
  if [ "$started_llm" = 1 ]; then scripts/local_llm.sh stop; fi
}
trap cleanup EXIT

# start_neo4j RUN: a Neo4j whose files are OUT/RUN/neo4j, on NEO4J_PORT.
start_neo4j() {
  [ -f "$JAR" ] || (cd testinfra/neo4j && mvn -B -o -q package) >&2 || die "building $JAR failed"
  port_open "$NEO4J_PORT" && die "port $NEO4J_PORT is in use; set EVAL_GRAPHITI_NEO4J_PORT"
  mkdir -p "$OUT/$1"
  java -Xmx1g -XX:+UseSerialGC -jar "$JAR" "$OUT/$1/neo4j" "$NEO4J_PORT" >"$OUT/$1/neo4j.log" 2>&1 &
  neo4j_pid=$!
  local i
  for ((i = 0; i < 1800; i++)); do
    grep -q '^READY' "$OUT/$1/neo4j.log" 2>/dev/null && return 0
    kill -0 "$neo4j_pid" 2>/dev/null || break
    sleep 0.1
  done
  tail -n 20 "$OUT/$1/neo4j.log" >&2
  die "Neo4j of $1 did not start"
}

stop_neo4j() {
  if [ -n "$neo4j_pid" ]; then
    kill -TERM "$neo4j_pid" 2>/dev/null || true
    wait "$neo4j_pid" 2>/dev/null || true
    neo4j_pid=""
  fi
}

start_embed() {
  [ -n "${BACKFILL_LOCAL_EMBED_URL:-}" ] && return 0
  if ! scripts/local_embed.sh status >/dev/null 2>&1; then started_embed=1; fi
  eval "$(scripts/local_embed.sh start)"
}

start_llm() {
  [ -n "${BACKFILL_LOCAL_LLM_URL:-}" ] && return 0
  if ! scripts/local_llm.sh status >/dev/null 2>&1; then started_llm=1; fi
  eval "$(scripts/local_llm.sh start)"
}

# complete RUN: the Graphiti run's summary says every episode was handed to Graphiti.
complete() {
  [ -f "$OUT/$1/summary.json" ] && python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(s["done"] < s["episodes"])' "$OUT/$1/summary.json"
}

# graphiti_run RUN: builds RUN (INPUT-MODE) with graphiti-core unless it is complete.
graphiti_run() {
  local run=$1 input=${1%%-*} mode=${1#*-} py start
  if complete "$run"; then
    log "$run: kept from an earlier run"
    return
  fi
  py=$(scripts/graphiti_venv.sh)
  start_llm
  start_neo4j "$run"
  echo "$NEO4J_PORT" >"$OUT/$run/serving" # score reads a running build through its server
  local in=()
  [ -f "${GOLD_IN[0]}" ] && in+=(--jsonl "${GOLD_IN[0]}:message:chat history")
  [ -f "${GOLD_IN[1]}" ] && in+=(--jsonl "${GOLD_IN[1]}:json:business records")
  [ "$input" = locomo ] && in=(--locomo "$SLICE")
  log "$run: building (log: $OUT/$run/build.log)"
  start=$(date +%s)
  BACKFILL_NEO4J_URI="bolt://127.0.0.1:$NEO4J_PORT" "$py" scripts/eval_graphiti.py --mode "$mode" --out "$OUT/$run" \
    "${in[@]}" --llm-url "$BACKFILL_LOCAL_LLM_URL" --model "$BACKFILL_LOCAL_LLM_MODEL" --frequency-penalty "${PENALTY:-0}" \
    --embedder-url "$BACKFILL_LOCAL_EMBED_URL" --embedder-model "$BACKFILL_LOCAL_EMBED_MODEL" --dims 384 >>"$OUT/$run/build.log" 2>&1 || log "$run: exit $? (log: $OUT/$run/build.log)"
  echo $(($(date +%s) - start)) >>"$OUT/$run/wall-seconds"
  rm -f "$OUT/$run/serving"
  stop_neo4j
}

# backfill_run KIND [BIN]: eval_local.sh's runs of KIND (gold, locomo, or both) with BIN (default
# RUN_BIN), which also scores them. A failure is logged and the other runs go on (as a Graphiti
# run's); the next build makes the missing run again.
backfill_run() {
  start_llm
  EVAL_OUT="$OUT/backfill" EVAL_BIN="${2:-$RUN_BIN}" EVAL_KINDS="$1" EVAL_BENCH=0 EVAL_RESULTS="$OUT/eval-local.md" \
    EVAL_JOB="$GOLD_JOB" EVAL_GOLD="$GOLD" scripts/eval_local.sh \
    >>"$OUT/backfill.log" 2>&1 || { tail -n 5 "$OUT/backfill.log" >&2; log "eval_local.sh failed (log: $OUT/backfill.log); going on"; }
}

start_embed # every run and every score embeds with it
if [ "$PHASE" != score ]; then
  for run in $RUNS; do
    case $run in
    backfill-gold) backfill_run gold ;;
    backfill-locomo) backfill_run locomo ;;
    gold-add_episode | gold-bulk | locomo-add_episode | locomo-bulk) graphiti_run "$run" ;;
    *) die "unknown run $run in EVAL_GRAPHITI_RUNS" ;;
    esac
  done
fi
[ "$PHASE" = build ] && exit 0

# --- score ---------------------------------------------------------------------------------
mkdir -p "$OUT/scores"
: >"$OUT/commands.txt"
# cmd ARGS...: runs bin/backfill ARGS, recording the command line (paths relative to OUT shown
# as $OUT/…).
cmd() {
  local line="${LOCOMO:+LOCOMO=$LOCOMO }$*"
  echo "${line//$OUT/\$OUT}" >>"$OUT/commands.txt"
  "$@"
}

# groups_done RUN INPUT: the groups all of whose episodes RUN handed to graphiti-core, one a line;
# "all" alone when that is every group.
groups_done() {
  python3 - "$OUT/$1" "$2" "$SLICE" "${GOLD_IN[@]}" <<'PY'
import collections, json, os, sys
run, kind, slice_ = sys.argv[1:4]
want = collections.Counter()
if kind == "gold":
    for f in sys.argv[4:]:
        if not os.path.exists(f):
            continue
        for line in open(f):
            if line.strip():
                want[json.loads(line)["group_id"]] += 1
else:
    for s in json.load(open(slice_)):
        want[str(s["sample_id"])] += sum(len(v) for k, v in s["conversation"].items() if k.startswith("session_") and isinstance(v, list))
got = collections.Counter()
for line in open(os.path.join(run, "progress.jsonl")):
    r = json.loads(line)
    got[r["group"]] += r["episodes"]
done = sorted(g for g in want if got[g] >= want[g])
print("all" if len(done) == len(want) else "\n".join(done))
PY
}

score_backfill() {
  local name kind
  for f in "$OUT"/backfill/*.report.json; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .report.json)
    kind=${name%%-*}
    if [ "$kind" = gold ]; then
      cmd "$BIN" eval "$GOLD_JOB" --checkpoint "$OUT/backfill/$name.db" --gold "$GOLD" --json "$OUT/scores/$name.json" \
        --markdown "$OUT/scores/$name.md" >"$OUT/scores/$name.out"
    else
      LOCOMO="$SLICE" cmd "$BIN" eval jobs/examples/locomo.yaml --checkpoint "$OUT/backfill/$name.db" $BACKFILL_LOCAL_EMBED_FLAGS --dataset locomo "$SLICE" \
        --json "$OUT/scores/$name.json" --markdown "$OUT/scores/$name.md" >"$OUT/scores/$name.out"
    fi
  done
}

# score_graphiti RUN: scores RUN's graph in its Neo4j: the gold set against the gold file (only
# its complete groups while it runs, beside backfill's graph of the same groups) and against
# backfill's graph episode by episode (diff --gold); the slice against its questions and
# backfill's answers to them (eval --against).
score_graphiti() {
  local run=$1 input=${1%%-*} uri done g
  [ -f "$OUT/$run/progress.jsonl" ] || { log "$run: not built yet"; return 0; }
  done=$(groups_done "$run" "$input")
  [ -n "$done" ] || { log "$run: no group complete yet"; return 0; }
  rm -f "$OUT/$run/partial.txt"
  local own=0
  if [ -f "$OUT/$run/serving" ] && port_open "$(cat "$OUT/$run/serving")"; then
    uri="bolt://127.0.0.1:$(cat "$OUT/$run/serving")" # a build is running: read its server
  else
    NEO4J_PORT=$SCORE_PORT start_neo4j "$run"
    uri="bolt://127.0.0.1:$SCORE_PORT" own=1
  fi
  if [ "$input" = gold ]; then
    local only=()
    if [ "$done" != all ]; then
      for g in $done; do only+=(--group "$g"); done
      echo "$run is still running: its row scores the $(wc -w <<<"$done") groups it finished ($(tr '\n' ' ' <<<"$done" | sed 's/ $//')); backfill on the same groups: F1 $(
        cmd "$BIN" eval "$GOLD_JOB" --checkpoint "$OUT/backfill/gold-model.db" --gold "$GOLD" "${only[@]}" --json "$OUT/$run/backfill-same-groups.json" >/dev/null &&
          python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["gold"]; print("%.3f (P %.3f, R %.3f)" % (g["f1"], g["precision"], g["recall"]))' "$OUT/$run/backfill-same-groups.json")." >"$OUT/$run/partial.txt"
    fi
    cmd "$BIN" eval "$GOLD_JOB@$uri" --gold "$GOLD" "${only[@]}" --json "$OUT/$run/eval.json" --markdown "$OUT/$run/eval.md" >"$OUT/$run/eval.out" ||
      log "$run: eval failed (see $OUT/$run/eval.out)"
    if [ "$done" = all ] && [ -f "$OUT/backfill/gold-model.report.json" ]; then
      cmd "$BIN" diff "$uri" "$GOLD_JOB@$OUT/backfill/gold-model.db" --gold "$GOLD" --json "$OUT/$run/diff.json" \
        --markdown "$OUT/$run/diff.md" >"$OUT/$run/diff.out" || log "$run: diff failed (see $OUT/$run/diff.out)"
    fi
  elif [ "$done" = all ]; then
    local against=()
    [ -f "$OUT/scores/locomo-model.json" ] && against=(--against "$OUT/scores/locomo-model.json")
    LOCOMO="$SLICE" cmd "$BIN" eval "jobs/examples/locomo.yaml@$uri" $BACKFILL_LOCAL_EMBED_FLAGS --dataset locomo "$SLICE" "${against[@]}" \
      --json "$OUT/$run/eval.json" --markdown "$OUT/$run/eval.md" >"$OUT/$run/eval.out" 2>&1 ||
      LOCOMO="$SLICE" cmd "$BIN" eval "jobs/examples/locomo.yaml@$uri" $BACKFILL_LOCAL_EMBED_FLAGS --dataset locomo "$SLICE" \
        --json "$OUT/$run/eval.json" --markdown "$OUT/$run/eval.md" >"$OUT/$run/eval.out" || log "$run: eval failed"
  else
    log "$run: still running; the slice is one group, scored once it is complete"
  fi
  if [ "$own" = 1 ]; then stop_neo4j; fi
}

# The offline responder on all of LoCoMo, for the three modes' full-run table.
if [ ! -f "$OUT/locomo-full.report.json" ]; then
  LOCOMO="$EVAL_LOCOMO" cmd "$BIN" run jobs/examples/locomo.yaml --checkpoint "$OUT/locomo-full.db" $BACKFILL_LOCAL_EMBED_FLAGS --report "$OUT/locomo-full.report.json" \
    >"$OUT/locomo-full.out" 2>"$OUT/locomo-full.log" || [ $? = 3 ] || die "the full LoCoMo run failed (log: $OUT/locomo-full.log)"
fi
LOCOMO="$EVAL_LOCOMO" cmd "$BIN" eval jobs/examples/locomo.yaml --checkpoint "$OUT/locomo-full.db" $BACKFILL_LOCAL_EMBED_FLAGS --dataset locomo "$EVAL_LOCOMO" \
  --json "$OUT/scores/locomo-full.json" --markdown "$OUT/scores/locomo-full.md" >"$OUT/scores/locomo-full.out"
score_backfill
for run in locomo-add_episode locomo-bulk gold-add_episode gold-bulk; do score_graphiti "$run"; done
python3 scripts/eval_graphiti_report.py "$OUT" "${EVAL_RESULTS:-bench/results.md}" "$BACKFILL_LOCAL_LLM_MODEL" "$EVAL_SET" "$EVAL_LOCOMO_SESSIONS" "$GOLD_GROUPS"
