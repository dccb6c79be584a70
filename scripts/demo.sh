#!/usr/bin/env bash
# Usage: scripts/demo.sh [BIN]   (run by `make demo`, from the repository root)
#
# Runs jobs/examples/demo.yaml on the bundled sample with the offline LLM responder into the job's
# own checkpoint (.backfill/demo/demo.db, so every command on the job finds it without
# --checkpoint), exports it, tells its temporal story with labelled queries, writes the timelines
# of Alice and of 지훈, scores the graph against its gold facts and prints follow-up commands that
# work as they are. BIN defaults to bin/backfill; everything goes to .backfill/demo/.
set -euo pipefail

BIN="${1:-bin/backfill}"
JOB=jobs/examples/demo.yaml
DIR=.backfill/demo

rm -rf "$DIR" && mkdir -p "$DIR"
"$BIN" run "$JOB" --report "$DIR/report.json"
"$BIN" export "$JOB" --out "$DIR/export"

# query prints a query's command line and what its times mean, then its answer.
query() {
  local what=$1
  shift
  printf '\n$ backfill query %s %s\n# %s\n' "$JOB" "$*" "$what"
  "$BIN" query "$JOB" "$@"
}

cat <<'TXT'

== What was true when, as known when ==
Alice left Kakao on 2024-03-02 and joined Naver; she told Ben on 2024-03-10. Every fact keeps when it
was true in the world (--valid-at asks about that) and when the system learned it (--known-at asks
what it believed at a past moment; both default to now).
TXT
query "valid at 2024-04-01, as known now: Naver, the Clova team, coffee" \
  --group alice --entity Alice --valid-at 2024-04-01
query "valid at 2024-04-01, as the system believed on 2024-03-01 (before Alice told Ben): still Kakao, the Search team, green tea" \
  --group alice --entity Alice --valid-at 2024-04-01 --known-at 2024-03-01
query "지훈 (the same story in Korean), valid at 2024-02-01, as known now: 카카오, 데이터플랫폼팀 (검색팀 only from 2024-02-13)" \
  --group jihoon --entity 지훈 --valid-at 2024-02-01

printf '\n== Timelines ==\n'
"$BIN" timeline "$JOB" --group alice --entity Alice --out "$DIR/timeline-alice.html"
"$BIN" timeline "$JOB" --group jihoon --entity 지훈 --out "$DIR/timeline-jihoon.html"

printf '\n== The demo graph scored against its hand-written gold facts (offline responder: a baseline for mechanics) ==\n'
"$BIN" eval "$JOB" --gold examples/gold/demo.yaml --markdown "$DIR/eval.md" --html "$DIR/eval.html"

cat <<TXT

report: $DIR/report.json  export: $DIR/export  eval: $DIR/eval.md, $DIR/eval.html (charts)
timelines: $DIR/timeline-alice.html $DIR/timeline-jihoon.html (open them in a browser)

Try next (each works as it is; the job's checkpoint is $DIR/demo.db):
  $BIN status $JOB
  $BIN status $JOB --group jihoon
  $BIN query $JOB --group alice --entity Alice --history
  $BIN query $JOB --group jihoon --entity 지훈은 --valid-at 2024-04-01 --known-at 2024-03-01 --json
  $BIN timeline $JOB --group alice --entity Alice --known-at 2024-03-01 --out $DIR/alice-known-2024-03-01.html
  $BIN export $JOB --format cypherl --out $DIR/cypherl
  $BIN plan $JOB
  $BIN --help
TXT
