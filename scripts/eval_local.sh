#!/usr/bin/env bash
# Usage: scripts/eval_local.sh   (make eval-local; not in CI)
#
# Builds the gold set's graph twice, with the offline responder and with Qwen2.5-Coder-1.5B on
# the local model server (scripts/local_llm.sh, BACKFILL_LOCAL_LLM_MODEL=qwen2.5-coder-1.5b),
# times both runs, scores both graphs with `bin/backfill eval JOB --gold FILE`, and writes the
# results as the "eval-local" section of bench/results.md (between its marker lines). A model
# run that ends with failed units (exit 3) is scored as it is; its report counts them.
#
# Environment: EVAL_JOB (the gold set's job, default jobs/examples/gold.yaml), EVAL_GOLD (its
# gold file, default examples/gold/gold.yaml), EVAL_OUT (work directory, default
# .backfill/eval-local), BACKFILL_LOCAL_LLM_MODEL (default qwen2.5-coder-1.5b), and those of
# scripts/local_llm.sh. The checkpoints in EVAL_OUT are kept between runs: an interrupted model run
# resumes, and answers already paid for come from its LLM cache. EVAL_FRESH=1 starts over.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

JOB="${EVAL_JOB:-jobs/examples/gold.yaml}"
GOLD="${EVAL_GOLD:-examples/gold/gold.yaml}"
OUT="${EVAL_OUT:-.backfill/eval-local}"
BIN=bin/backfill
export BACKFILL_LOCAL_LLM_MODEL="${BACKFILL_LOCAL_LLM_MODEL:-qwen2.5-coder-1.5b}"
[ -f "$JOB" ] || die "no gold set job $JOB (set EVAL_JOB)"
[ -x "$BIN" ] || die "no $BIN (make build)"
if [ "${EVAL_FRESH:-0}" = 1 ]; then rm -rf "$OUT"; fi
mkdir -p "$OUT"

# run NAME FLAGS...: runs the job into $OUT/NAME.db, timing it; exit 0 and 3 both count as done.
run() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  "$BIN" run "$JOB" --checkpoint "$OUT/$name.db" --report "$OUT/$name.report.json" "$@" >"$OUT/$name.out" 2>"$OUT/$name.log" || rc=$?
  echo $(($(date +%s) - start)) >"$OUT/$name.seconds"
  case $rc in
  0 | 3) log "$name: exit $rc in $(cat "$OUT/$name.seconds") s" ;;
  *) tail -n 20 "$OUT/$name.log" >&2; die "$name: exit $rc" ;;
  esac
}

run offline --set llm.provider=offline
started=0
if ! scripts/local_llm.sh status >/dev/null 2>&1; then started=1; fi
eval "$(scripts/local_llm.sh start)"
trap '[ "$started" = 1 ] && scripts/local_llm.sh stop' EXIT
# shellcheck disable=SC2086 # the flags are words
run model $BACKFILL_LOCAL_LLM_FLAGS
scripts/local_llm.sh bench >"$OUT/bench.txt" 2>&1 || true

for name in offline model; do
  "$BIN" eval "$JOB" --checkpoint "$OUT/$name.db" --gold "$GOLD" --json "$OUT/$name.eval.json" \
    --markdown "$OUT/$name.eval.md" >"$OUT/$name.eval.out"
done

python3 - "$OUT" "$BACKFILL_LOCAL_LLM_MODEL" "$JOB" <<'EOF'
import json, pathlib, re, sys
out, model, job = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = []
for name in ("offline", "model"):
    r = json.loads((out / f"{name}.report.json").read_text())
    l = r["llm"]
    rep = ", ".join(f"{k} {v}" for k, v in sorted((l.get("answers_repaired") or {}).items())) or "none"
    t = r.get("temporal") or {}
    rej = ", ".join(f"{k} {v}" for k, v in sorted((t.get("closures_rejected") or {}).items())) or "none"
    rows.append(f"| {name if name == 'offline' else model} | {(out / f'{name}.seconds').read_text().strip()} | "
                f"{r['episodes']} | {r['entities']} | {r['facts']} | {r['facts_invalidated']} | {l['calls']} | "
                f"{l['prompt_tokens']} / {l['completion_tokens']} | {l.get('invalid_answers', 0)} | {l.get('truncated', 0)} | "
                f"{r.get('failed_units', 0)} | {rep} | {t.get('judged', '–')} | {rej} |")
section = "\n".join([
    "<!-- eval-local -->",
    "## eval-local: the gold set with a 1.5B model on 2 cores",
    "",
    f"`make eval-local`: `{job}` built with the offline responder (a baseline for the mechanics, not for extraction quality) and with {model} on llama.cpp (`scripts/local_llm.sh`), then `backfill eval --gold`.",
    "",
    "| LLM | seconds | episodes | entities | facts | closed | calls | tokens in / out | invalid answers | cut at max_tokens | failed units | answers repaired | facts judged | closures rejected |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    *rows,
    "",
    "Tokens per second here: " + " ; ".join((out / "bench.txt").read_text().split("\n")).strip(" ;"),
    "",
    "### offline responder",
    "",
    (out / "offline.eval.md").read_text().strip(),
    "",
    f"### {model}",
    "",
    (out / "model.eval.md").read_text().strip(),
    "<!-- /eval-local -->",
])
results = pathlib.Path("bench/results.md")
text = results.read_text() if results.exists() else ""
pattern = re.compile(r"<!-- eval-local -->.*?<!-- /eval-local -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip() + "\n\n" + section + "\n"
results.write_text(text)
print(section)
EOF
