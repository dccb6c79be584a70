#!/usr/bin/env bash
# Usage: scripts/eval_local.sh   (make eval-local; not in CI)
#
# Builds the gold set's graph and a LoCoMo slice's graph with the offline responder and with
# Qwen2.5-Coder-1.5B on the local model server (scripts/local_llm.sh,
# BACKFILL_LOCAL_LLM_MODEL=qwen2.5-coder-1.5b), every run and score embedding with the local
# embedding model (scripts/local_embed.sh, all-MiniLM-L6-v2), times the runs, scores the graphs with
# `bin/backfill eval` (the gold set with --gold, the slice with --dataset locomo), and writes the
# results as the "eval-local" section of bench/results.md (between its marker lines; `make
# bench` keeps it). A model run that ends with failed units (exit 3) is scored as it is; its
# report counts them.
#
# The LoCoMo slice is the first conversation's first EVAL_LOCOMO_SESSIONS sessions with the
# questions whose evidence lies in them (scripts/locomo_slice.py), written to a temporary file
# outside the clone (the dataset's licence: evaluation use, no copies in the repository). With EVAL_BEFORE_BIN (another
# build of backfill, such as the one before a change) the model runs are made again with that
# binary, as "before" rows; `backfill diff --gold` compares the two gold graphs episode by
# episode and `backfill eval --against` the two slices question by question (each change with
# its 95% interval).
#
# A run whose report is already in EVAL_OUT is not made again (the model takes hours on 2
# cores), and the checkpoints in EVAL_OUT are kept between runs: an interrupted model run
# resumes, and answers already paid for come from its LLM cache. EVAL_FRESH=1 (or removing
# EVAL_OUT, or the run's files) makes them afresh.
#
# Environment: EVAL_JOB (the gold set's job, default jobs/examples/gold.yaml), EVAL_GOLD (its
# gold file, default examples/gold/gold.yaml), EVAL_LOCOMO (locomo10.json, default
# ../shared/datasets/locomo/locomo10.json), EVAL_LOCOMO_SESSIONS (default 2; 0 leaves LoCoMo
# out), EVAL_SET (--set flags of every run, words), EVAL_BIN (the backfill binary, default
# bin/backfill), EVAL_BEFORE_BIN, EVAL_OUT (work directory,
# default .backfill/eval-local), EVAL_FRESH (1: remove EVAL_OUT first), EVAL_RESULTS (the file
# that gets the section, default bench/results.md), EVAL_KINDS (the runs to make, default "gold
# locomo"; the scores cover every run in EVAL_OUT), EVAL_BENCH (0: no `local_llm.sh bench`),
# BACKFILL_LOCAL_LLM_MODEL (default
# qwen2.5-coder-1.5b), and those of scripts/local_llm.sh and scripts/local_embed.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

JOB="${EVAL_JOB:-jobs/examples/gold.yaml}"
GOLD="${EVAL_GOLD:-examples/gold/gold.yaml}"
LOCOMO_SRC="${EVAL_LOCOMO:-../shared/datasets/locomo/locomo10.json}"
SESSIONS="${EVAL_LOCOMO_SESSIONS:-2}"
OUT="${EVAL_OUT:-.backfill/eval-local}"
KINDS="${EVAL_KINDS:-gold locomo}"
BEFORE="${EVAL_BEFORE_BIN:-}"
BIN="${EVAL_BIN:-bin/backfill}"
export BACKFILL_LOCAL_LLM_MODEL="${BACKFILL_LOCAL_LLM_MODEL:-qwen2.5-coder-1.5b}"
[ -f "$JOB" ] || die "no gold set job $JOB (set EVAL_JOB)"
[ -x "$BIN" ] || die "no $BIN (make build, or set EVAL_BIN)"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "EVAL_BEFORE_BIN $BEFORE is not an executable"
if [ "${EVAL_FRESH:-0}" = 1 ]; then rm -rf "$OUT"; fi
mkdir -p "$OUT"
TMP=$(mktemp -d)
started=0 embed_started=0
trap 'rm -rf "$TMP"; if [ "$started" = 1 ]; then scripts/local_llm.sh stop; fi; if [ "$embed_started" = 1 ]; then scripts/local_embed.sh stop; fi' EXIT
if ! scripts/local_embed.sh status >/dev/null 2>&1; then embed_started=1; fi
eval "$(scripts/local_embed.sh start)"

SLICE="$TMP/locomo-slice.json"
if [ "$SESSIONS" -gt 0 ]; then
  [ -f "$LOCOMO_SRC" ] || die "no LoCoMo file $LOCOMO_SRC (set EVAL_LOCOMO, or EVAL_LOCOMO_SESSIONS=0)"
  python3 scripts/locomo_slice.py "$LOCOMO_SRC" "$SESSIONS" "$SLICE"
fi

# run NAME BIN JOB FLAGS...: builds NAME's graph into $OUT/NAME.db with BIN, timing it, unless its
# report exists; exit 0 and 3 both count as done.
run() {
  local name=$1 bin=$2 job=$3 start rc=0
  shift 3
  if [ -f "$OUT/$name.report.json" ]; then
    log "$name: kept from an earlier run"
    return
  fi
  start=$(date +%s)
  # shellcheck disable=SC2086 # EVAL_SET is words
  LOCOMO="$SLICE" "$bin" run "$job" --checkpoint "$OUT/$name.db" --report "$OUT/$name.report.json" ${EVAL_SET:-} $BACKFILL_LOCAL_EMBED_FLAGS "$@" \
    >"$OUT/$name.out" 2>"$OUT/$name.log" || rc=$?
  echo $(($(date +%s) - start)) >"$OUT/$name.seconds"
  case $rc in
  0 | 3) log "$name: exit $rc in $(cat "$OUT/$name.seconds") s" ;;
  *) tail -n 20 "$OUT/$name.log" >&2; rm -f "$OUT/$name.report.json"; die "$name: exit $rc" ;;
  esac
}

# both NAME BIN FLAGS...: the gold set and the LoCoMo slice (those of EVAL_KINDS).
both() {
  local name=$1 bin=$2
  shift 2
  if [[ " $KINDS " == *" gold "* ]]; then run "gold-$name" "$bin" "$JOB" "$@"; fi
  if [ "$SESSIONS" -gt 0 ] && [[ " $KINDS " == *" locomo "* ]]; then run "locomo-$name" "$bin" jobs/examples/locomo.yaml "$@"; fi
}

both offline "$BIN" --set llm.provider=offline
if ! scripts/local_llm.sh status >/dev/null 2>&1; then started=1; fi
eval "$(scripts/local_llm.sh start)"
# shellcheck disable=SC2086 # the flags are words
both model "$BIN" $BACKFILL_LOCAL_LLM_FLAGS
if [ -n "$BEFORE" ]; then
  # shellcheck disable=SC2086
  both before "$BEFORE" $BACKFILL_LOCAL_LLM_FLAGS
fi
if [ "${EVAL_BENCH:-1}" = 1 ]; then scripts/local_llm.sh bench >"$OUT/bench.txt" 2>&1 || true; fi

for f in "$OUT"/gold-*.report.json; do
  [ -e "$f" ] || continue # EVAL_KINDS without this kind
  name=$(basename "$f" .report.json)
  # shellcheck disable=SC2086 # the flags are words
  "$BIN" eval "$JOB" --checkpoint "$OUT/$name.db" $BACKFILL_LOCAL_EMBED_FLAGS --gold "$GOLD" --json "$OUT/$name.eval.json" \
    --markdown "$OUT/$name.eval.md" >"$OUT/$name.eval.out"
done
# The model's gold scores against the before build's, episode by episode (a paired bootstrap).
if [ -f "$OUT/gold-before.report.json" ] && [ -f "$OUT/gold-model.report.json" ]; then
  "$BIN" diff "$JOB@$OUT/gold-before.db" "$JOB@$OUT/gold-model.db" --gold "$GOLD" --json "$OUT/gold-diff.json" >"$OUT/gold-diff.out"
fi
if [ "$SESSIONS" -gt 0 ]; then
  # locomo-before sorts first: the model's slice is then compared with it question by question.
  for f in "$OUT"/locomo-*.report.json; do
    [ -e "$f" ] || continue # EVAL_KINDS without this kind
    name=$(basename "$f" .report.json)
    against=()
    if [ "$name" = locomo-model ] && [ -f "$OUT/locomo-before.report.json" ]; then against=(--against "$OUT/locomo-before.eval.json"); fi
    # shellcheck disable=SC2086 # the flags are words
    LOCOMO="$SLICE" "$BIN" eval jobs/examples/locomo.yaml --checkpoint "$OUT/$name.db" $BACKFILL_LOCAL_EMBED_FLAGS --dataset locomo "$SLICE" \
      --json "$OUT/$name.eval.json" --markdown "$OUT/$name.eval.md" "${against[@]}" >"$OUT/$name.eval.out"
  done
fi

python3 - "$OUT" "$BACKFILL_LOCAL_LLM_MODEL" "$JOB" "$SESSIONS" "${EVAL_SET:-}" "${EVAL_RESULTS:-bench/results.md}" <<'EOF'
import json, pathlib, re, sys
out, model, job, sessions, sets = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
who = {"offline": "offline responder", "model": model, "before": model + " (EVAL_BEFORE_BIN)"}

def runs(kind):
    return [n for n in ("offline", "model", "before") if (out / f"{kind}-{n}.report.json").exists()]

def salvaged(l):
    return f" ({l['salvaged']} kept)" if l.get("salvaged") else ""

sys.path.insert(0, "scripts")
from runs_usage import usage  # noqa: E402

def row(kind, n):
    r = json.loads((out / f"{kind}-{n}.report.json").read_text())
    l, eps = dict(r["llm"]), max(r["episodes"], 1)
    u = usage(out / f"{kind}-{n}.db")  # every run of an interrupted and resumed build, not the last alone
    if u:
        l.update({k: u[k] for k in ("calls", "prompt_tokens", "completion_tokens", "truncated", "invalid_answers")})
        (out / f"{kind}-{n}.seconds").write_text("%.0f\n" % u["seconds"])
    rep = ", ".join(f"{k} {v}" for k, v in sorted((l.get("answers_repaired") or {}).items())) or "none"
    units = ", ".join(f"{k} {v}" for k, v in sorted((r.get("extract_units") or {}).items())) or "–"
    t = r.get("temporal") or {}
    rej = ", ".join(f"{k} {v}" for k, v in sorted((t.get("closures_rejected") or {}).items())) or "none"
    return (f"| {who[n]} | {(out / f'{kind}-{n}.seconds').read_text().strip()} | {r['episodes']} | {r['entities']} | {r['facts']} | "
            f"{r['facts_invalidated']} | {l['calls']} | {l['calls'] / eps:.2f} | {l['prompt_tokens']} / {l['completion_tokens']} | "
            f"{l['prompt_tokens'] / eps:.0f} | {units} | {l.get('invalid_answers', 0)} | {l.get('truncated', 0)}{salvaged(l)} | "
            f"{r.get('failed_units', 0)} | {rep} | {t.get('judged', '–')} | {rej} |")

head = ["| LLM | seconds | episodes | entities | facts | closed | calls | calls/episode | tokens in / out | tokens in/episode | extract units | invalid answers | cut at max_tokens | failed units | answers repaired | facts judged | closures rejected |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
lines = ["<!-- eval-local -->", "## eval-local: the gold set and a LoCoMo slice with a 1.5B model on 2 cores", "",
         f"`make eval-local` (scripts/eval_local.sh): `{job}` and, with EVAL_LOCOMO_SESSIONS={sessions}, the first LoCoMo conversation's "
         f"first {sessions} sessions (jobs/examples/locomo.yaml), built with the offline responder (a baseline for the mechanics, not "
         f"for extraction quality) and with {model} on llama.cpp (`scripts/local_llm.sh`), then `backfill eval`."
         + (f" Every run with `{sets}`." if sets else ""), "",
         "### The gold set", "", *head, *[row("gold", n) for n in runs("gold")], ""]
diff = out / "gold-diff.json"
if diff.exists() and runs("gold") and "before" in runs("gold"):
    g = json.loads(diff.read_text())["report"]["gold"]
    lines += [f"Gold scores of {who['model']} against {who['before']}, paired over {g['episodes']} episodes "
              f"(`backfill diff --gold`, {g['resamples']} draws): F1 {g['a']['f1']:.3f} → {g['b']['f1']:.3f} "
              f"({g['change']['f1']:+.3f}, 95% interval {g['low']['f1']:+.3f} … {g['high']['f1']:+.3f}); precision "
              f"{g['a']['precision']:.3f} → {g['b']['precision']:.3f}, recall {g['a']['recall']:.3f} → {g['b']['recall']:.3f}; "
              f"the model's F1 higher in {100 * g['b_higher']:.1f}% and lower in {100 * g['b_lower']:.1f}% of the draws.", ""]
# One line per run of the gold scores; the whole reports (misses, extras, intervals, health) stay in
# $OUT/gold-*.eval.md, so the section stays a page of current results.
lines += ["| LLM | precision | recall | F1 (95% interval) | intervals right | wrongly closed | closures missed | closed at the wrong time |",
          "|---|---:|---:|---|---:|---:|---:|---:|"]
for n in runs("gold"):
    g = json.loads((out / f"gold-{n}.eval.json").read_text())["gold"]
    f1 = (g.get("spread") or {}).get("f1") or []
    band = f" ({f1[0]:.3f}–{f1[1]:.3f})" if len(f1) == 2 else ""
    lines.append(f"| {who[n]} | {g['precision']:.3f} | {g['recall']:.3f} | {g['f1']:.3f}{band} | {g['interval_correct']}/{g['matched']} | "
                 f"{g['wrongly_closed']}/{g['matched_open_in_gold']} | {g['closures_missed']}/{g['matched_closed_in_gold']} | {g['closed_at_wrong_time']} |")
lines += ["", "The whole eval reports (misses, extras, intervals, graph health): gold-*.eval.md in EVAL_OUT.", ""]
if runs("locomo"):
    lines += ["### The LoCoMo slice", "", *head, *[row("locomo", n) for n in runs("locomo")], "",
              "| LLM | questions | evidence R@5 | evidence R@10 | evidence R@20 | answer R@5 | answer R@10 | answer R@20 |", "|---|---|---|---|---|---|---|---|"]
    for n in runs("locomo"):
        rt = json.loads((out / f"locomo-{n}.eval.json").read_text()).get("retrieval") or {}
        a = (rt.get("categories") or [{}])[-1]
        cell = lambda hits, rec, tot: " | ".join(f"{x:.3f} ({h}/{tot})" for h, x in zip(hits, rec))
        lines.append(f"| {who[n]} | {a.get('questions', 0)} | {cell(a.get('evidence_hits', []), a.get('evidence_recall', []), a.get('with_evidence', 0))} | "
                     f"{cell(a.get('answer_hits', []), a.get('answer_recall', []), a.get('with_answer', 0))} |")
    lines.append("")
    cmp = (json.loads((out / "locomo-model.eval.json").read_text()).get("against") or {}).get("retrieval") if "model" in runs("locomo") else None
    if cmp:
        lines += [f"Retrieval of {who['model']} against {who['before']}, paired over {cmp['questions']} questions (`backfill eval --against`, "
                  f"{cmp['resamples']} draws): " + "; ".join(f"evidence R@{r['k']} {r['a']:.3f} → {r['b']:.3f} ({r['change']:+.3f}, 95% interval "
                  f"{r['low']:+.3f} … {r['high']:+.3f})" for r in cmp["evidence_recall"]) + ".", ""]
bench = out / "bench.txt"
if bench.exists():
    lines += ["Tokens per second here: " + " ; ".join(bench.read_text().split("\n")).strip(" ;"), ""]
lines.append("<!-- /eval-local -->")
section = "\n".join(lines)
results = pathlib.Path(sys.argv[6])
text = results.read_text() if results.exists() else ""
pattern = re.compile(r"<!-- eval-local -->.*?<!-- /eval-local -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section + "\n"
results.write_text(text)
print(section)
EOF
