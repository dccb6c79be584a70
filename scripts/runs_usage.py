"""The LLM work of every run that built a checkpoint, for scripts/eval_local.sh and
scripts/eval_graphiti_report.py: a run that was interrupted and resumed reports only its own
part, so the runs table (checkpoints/doc.go: one row per run that opened the store, with its
report) is summed instead."""
import json
import sqlite3


def usage(db):
    """Sums calls, prompt and completion tokens, answers cut at max_tokens, invalid answers and
    seconds over the runs recorded in the checkpoint db; None when it records none."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        reports = [json.loads(r[0]) for r in con.execute("SELECT report FROM runs ORDER BY seq")]
    finally:
        con.close()
    if not reports:
        return None
    out = {"runs": len(reports), "seconds": 0.0}
    for k in ("calls", "prompt_tokens", "completion_tokens", "truncated", "invalid_answers"):
        out[k] = sum((r.get("llm") or {}).get(k, 0) for r in reports)
    out["seconds"] = sum(r.get("seconds", 0) for r in reports)
    return out
