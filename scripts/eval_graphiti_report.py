#!/usr/bin/env python3
"""Usage: eval_graphiti_report.py OUT RESULTS MODEL SETS SESSIONS [GOLD_GROUPS]

Writes the eval-graphiti section of RESULTS (bench/results.md, between its marker lines) from
the scores scripts/eval_graphiti.sh left in OUT: the side-by-side tables of the gold set and the
LoCoMo slice for backfill and graphiti-core (add_episode, add_episode_bulk) on MODEL, and the
LoCoMo full-run recall table of the offline responder in the three retrieval modes (GOLD_GROUPS:
the gold set's groups the runs built, scripts/gold_slice.py in OUT/gold-slice; empty: all). Prints
the section. What a run has not finished is shown as such, never as a zero.
"""
import json
import os
import pathlib
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runs_usage import usage  # noqa: E402

out, results, model, sets, sessions = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
gold_groups = sys.argv[6].split() if len(sys.argv) > 6 else []
if gold_groups:
    gold_episodes = sum(1 for f in ("conversations.jsonl", "records.jsonl") if (out / "gold-slice" / f).exists()
                        for line in open(out / "gold-slice" / f) if line.strip())
    gold_input = ("the gold set's group%s %s (%d of its 76 episodes, with their gold facts: EVAL_GOLD_GROUPS, scripts/gold_slice.py)"
                  % ("s" if len(gold_groups) > 1 else "", ", ".join(gold_groups), gold_episodes))
else:
    gold_episodes, gold_input = 76, "the gold set (jobs/examples/gold.yaml, 76 episodes)"


def load(p):
    p = out / p
    return json.loads(p.read_text()) if p.exists() else None


def text(p):
    p = out / p
    return p.read_text().strip() if p.exists() else ""


def pct3(x):
    return "%.3f" % x


def graphiti_cost(run, episodes):
    s = load(run + "/summary.json")
    rows = [json.loads(line) for line in open(out / run / "progress.jsonl")] if (out / run / "progress.jsonl").exists() else []
    calls = sum(r.get("calls", 0) for r in rows)
    pt = sum(r.get("prompt_tokens", 0) for r in rows)
    ct = sum(r.get("completion_tokens", 0) for r in rows)
    done = sum(r["episodes"] for r in rows)
    failed = sum(r["episodes"] for r in rows if "error" in r)
    secs = sum(r.get("seconds", 0) for r in rows)
    cut = sum(r.get("cut_at_max_tokens", 0) for r in rows)
    errs = sum(r.get("errors", 0) for r in rows)
    where = sorted({r.get("where", "").split(" (")[0] for r in rows if "error" in r} - {""})
    kinds = sorted({r["error"].split(":")[0] for r in rows if "error" in r})
    # The calls of the episode (or bulk group) in hand when the run stopped: in calls.jsonl under a
    # label progress.jsonl does not list yet.
    labels = {r.get("name") or r["group"] for r in rows}
    cut_off = [json.loads(line) for line in open(out / run / "calls.jsonl")] if (out / run / "calls.jsonl").exists() else []
    cut_off = [c for c in cut_off if c["label"] not in labels]
    return {"done": done, "failed": failed, "episodes": episodes, "calls": calls, "pt": pt, "ct": ct, "secs": secs, "cut": cut,
            "errors": errs, "where": where, "kinds": kinds, "complete": s is not None and s.get("done", 0) >= episodes,
            "cut_off": cut_off}


def cut_off_note(run, c):
    """A sentence on the work of a Graphiti run's episode (or bulk group) that did not finish."""
    if not c or c["complete"] or not c["cut_off"]:
        return ""
    by = {}
    for x in c["cut_off"]:
        by[x["task"]] = by.get(x["task"], 0) + 1
    return ("%s did not finish: %d of %d episodes done; the episode (in bulk mode, the group) in hand when it stopped (%s) had made %d LLM calls (%d prompt / %d "
            "completion tokens, %.0f s of model time; by response model: %s), not counted in the row.") % (
        run, c["done"], c["episodes"], ", ".join(sorted({x["label"] for x in c["cut_off"]})), len(c["cut_off"]),
        sum(x["prompt_tokens"] for x in c["cut_off"]), sum(x["completion_tokens"] for x in c["cut_off"]),
        sum(x["seconds"] for x in c["cut_off"]), ", ".join("%s %d" % kv for kv in sorted(by.items())))


def backfill_cost(name):
    """The work of every run that built the checkpoint (an interrupted build's resumed run reports
    only its own part), plus backfill/NAME.reused.json when the checkpoint was seeded with cached
    answers an earlier build paid for (calls, prompt_tokens, completion_tokens, and seconds, an
    estimate): those answers are this graph's cost too, and the row says so."""
    r = load("backfill/%s.report.json" % name)
    if r is None:
        return None
    u = usage(out / "backfill" / ("%s.db" % name))
    c = {"done": r["episodes"], "failed": r.get("failed_units", 0), "episodes": r["episodes"], "calls": u["calls"],
         "pt": u["prompt_tokens"], "ct": u["completion_tokens"], "secs": u["seconds"], "cut": u["truncated"],
         "errors": u["invalid_answers"], "where": [], "kinds": [], "complete": True}
    reused = load("backfill/%s.reused.json" % name)
    if reused:
        for k, f in (("calls", "calls"), ("pt", "prompt_tokens"), ("ct", "completion_tokens"), ("secs", "seconds")):
            c[k] += reused[f]
        c["reused"] = reused
    return c


def cost_cells(c):
    if c is None:
        return ["not run"] * 6
    n = max(c["done"], 1)
    fails = "%d of %d episodes" % (c["failed"], c["done"]) if c["failed"] else "0"
    if c["kinds"]:
        fails += " (%s in %s)" % (", ".join(c["kinds"]), ", ".join(c["where"]) or "?")
    done = "%d of %d" % (c["done"], c["episodes"]) + ("" if c["done"] >= c["episodes"] else " (not finished)")
    secs = "%.0f" % c["secs"]
    if c.get("reused"):
        done += " (%d answers reused: see the note)" % c["reused"]["calls"]
        secs = "≈" + secs
    if c["done"] == 0:
        return [done, "–", "–", "–", secs, fails]
    return [done, "%.2f" % (c["calls"] / n), "%.0f" % (c["pt"] / n), "%.0f" % (c["ct"] / n), secs, fails]


def gold_cells(rep):
    g = (rep or {}).get("gold")
    if not g:
        return ["–"] * 4
    sp = g.get("spread") or {}
    f1 = "%.3f / %.3f / %.3f" % (g["precision"], g["recall"], g["f1"])
    if sp.get("f1"):
        f1 += " (%.2f–%.2f)" % tuple(sp["f1"])
    return [f1, "%d of %d" % (g["wrongly_closed"], g["matched_open_in_gold"]), "%d of %d" % (g["closures_missed"], g["matched_closed_in_gold"]),
            str(g["closed_at_wrong_time"])]


def recall_all(rep, mode):
    rt = (rep or {}).get("retrieval")
    if not rt:
        return None, None
    if mode == "facts":
        return rt["categories"][-1], rt["k"]
    for b in rt.get("baselines") or []:
        if b["mode"] == mode:
            return b["categories"][-1], rt["k"]
    return None, rt["k"]


def recall_cell(rep, mode, kind, k):
    c, ks = recall_all(rep, mode)
    if c is None or k not in ks:
        return "–"
    i = ks.index(k)
    hits, n = c[kind + "_hits"][i], c["with_evidence" if kind != "answer" else "with_answer"]
    return "%.3f (%d/%d)" % (hits / n if n else 0, hits, n)


who = [("backfill-offline", "backfill, offline responder (mechanics baseline)"), ("backfill-model", "backfill, " + model),
       ("add_episode", "graphiti-core 0.31.2 add_episode, " + model), ("bulk", "graphiti-core 0.31.2 add_episode_bulk, " + model)]


def rows(kind, episodes):
    out_rows = []
    for key, label in who:
        if key.startswith("backfill"):
            name = "%s-%s" % (kind, key.split("-")[1])
            cost, rep = backfill_cost(name), load("scores/%s.json" % name)
        else:
            run = "%s-%s" % (kind, key)
            cost = graphiti_cost(run, episodes) if (out / run / "calls.jsonl").exists() else None
            rep = load(run + "/eval.json")
        out_rows.append((label, cost, rep, key))
    return out_rows


lines = ["<!-- eval-graphiti -->", "## eval-graphiti: backfill and graphiti-core 0.31.2 on the same local model (issue 34)", ""]
lines += [("`make eval-graphiti` (scripts/eval_graphiti.sh): %s and the LoCoMo slice "
           "of eval-local (the first conversation's first %s session(s)) built by backfill (eval_local.sh's runs, `%s`) and by "
           "graphiti-core 0.31.2 with `add_episode` and with `add_episode_bulk` (scripts/eval_graphiti.py, its own venv), all on %s "
           "on llama.cpp at 2 threads (scripts/local_llm.sh), one request at a time on both sides (llm.concurrency 1; Graphiti's "
           "max_coroutines 1), temperature 0, every graph scored by the same `backfill eval` (a Graphiti graph read over Bolt). "
           "Graphiti's client reaches the model through scripts/graphiti_shim.py, which changes exactly two things in a request: "
           "its json_schema response format becomes llama.cpp's json_object with the same schema (llama-cpp-python answers "
           "json_schema with an error), and the runs' frequency_penalty is added; max_tokens (16,384) and everything else pass "
           "as they are. Embeddings on both sides: the offline provider's hashing embedder (256 dimensions; `backfill llm-stub` "
           "for Graphiti). Seconds are wall time on 2 cores shared with other work (the notes below give the load), so "
           "they compare only roughly; calls and tokens are exact (the server's usage).") % (gold_input, sessions, sets, model), ""]

# The gold set.
gold_rows = rows("gold", gold_episodes)
lines += ["### The gold set", "",
          "| system | episodes done | gold P / R / F1 (95% interval of F1) | wrongly closed (of open) | closures missed (of closed) | closed at the wrong time | calls / episode | prompt tokens / episode | completion tokens / episode | seconds | failures |",
          "|---|---|---|---|---|---|---:|---:|---:|---:|---|"]
for label, cost, rep, key in gold_rows:
    c = cost_cells(cost)
    lines.append("| %s | %s | %s | %s |" % (label, c[0], " | ".join(gold_cells(rep)), " | ".join(c[1:])))
lines.append("")
for run in ("gold-add_episode", "gold-bulk"):
    d = load(run + "/diff.json")
    g = ((d or {}).get("report") or {}).get("gold")
    if g:
        lines.append(("backfill (B) against %s (A), paired over %d episodes (`backfill diff --gold`, %d draws): F1 %.3f → %.3f "
                      "(%+.3f, 95%% interval %+.3f … %+.3f), precision %.3f → %.3f, recall %.3f → %.3f.") % (
            run, g["episodes"], g["resamples"], g["a"]["f1"], g["b"]["f1"], g["change"]["f1"], g["low"]["f1"], g["high"]["f1"],
            g["a"]["precision"], g["b"]["precision"], g["a"]["recall"], g["b"]["recall"]))
        lines.append("")
    part = text(run + "/partial.txt")
    if part:
        lines += [part, ""]
for label, cost, rep, key in gold_rows:
    note = cut_off_note("gold-" + key, cost) if not key.startswith("backfill") else ""
    if note:
        lines += [note, ""]

# The LoCoMo slice.
slice_ = load("locomo-slice.json") or []
loc_rows = rows("locomo", sum(len(v) for c in slice_ for k, v in c["conversation"].items() if k.startswith("session_") and isinstance(v, list)))
ks = [5, 10, 20]
lines += ["### The LoCoMo slice", "",
          "| system | episodes done | evidence R@5 / R@10 / R@20, facts | session R@10, facts | evidence R@10, facts + episodes (k items) | evidence R@10, episodes-hybrid (no graph) | answer R@10, facts | calls / episode | prompt tokens / episode | completion tokens / episode | seconds | failures |",
          "|---|---|---|---|---|---|---|---:|---:|---:|---:|---|"]
for label, cost, rep, key in loc_rows:
    c = cost_cells(cost)
    ev = " / ".join(recall_cell(rep, "facts", "evidence", k) for k in ks)
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (label, c[0], ev, recall_cell(rep, "facts", "session", 10),
                                                              recall_cell(rep, "facts+episodes", "evidence", 10),
                                                              recall_cell(rep, "episodes-hybrid", "evidence", 10),
                                                              recall_cell(rep, "facts", "answer", 10), " | ".join(c[1:])))
lines.append("")
for label, cost, rep, key in loc_rows:
    note = cut_off_note("locomo-" + key, cost) if not key.startswith("backfill") else ""
    if note:
        lines += [note, ""]
for run in ("locomo-add_episode", "locomo-bulk"):
    cmp = ((load(run + "/eval.json") or {}).get("against") or {}).get("retrieval")
    if cmp:
        lines.append(("%s (B) against backfill's model graph (A), paired over %d questions (`backfill eval --against`): " % (run, cmp["questions"]))
                     + "; ".join("evidence R@%d %.3f → %.3f (%+.3f, 95%% interval %+.3f … %+.3f)" % (r["k"], r["a"], r["b"], r["change"], r["low"], r["high"])
                                 for r in cmp["evidence_recall"]) + ".")
        lines.append("")

# The full LoCoMo run, offline.
full = load("scores/locomo-full.json")
if full and full.get("retrieval"):
    rt = full["retrieval"]
    h = full["health"]
    lines += ["### LoCoMo, all 10 conversations, offline responder: the retrieval modes", "",
              ("`jobs/examples/locomo.yaml` on locomo10.json with the offline responder (%d episodes, %d facts; a baseline for the mechanics, "
               "not for extraction quality), `backfill eval --dataset locomo`: the questions of categories 1-4 with evidence in the graph. "
               "Embeddings: all-MiniLM-L6-v2 (scripts/local_embed.sh). Every mode at k items: facts, the graph's facts by hybrid search; "
               "facts+episodes, the facts and the episodes fused; episodes-bm25, -dense and -hybrid, the raw turns without the graph; "
               "facts+episodes-2k, Graphiti's combined search (k facts and k BM25 episodes), a labelled extra at 2k items. Session recall counts a retrieved turn "
               "of an evidence session (the dia_id's prefix), as published session-level results do.") % (h["episodes"], h["facts"]), "",
              "| mode | questions | evidence R@5 | evidence R@10 | evidence R@20 | session R@5 | session R@10 | session R@20 | answer R@5 | answer R@10 | answer R@20 |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in ("facts", "facts+episodes", "episodes-bm25", "episodes-dense", "episodes-hybrid", "facts+episodes-2k"):
        c, ks_ = recall_all(full, mode)
        cells = [recall_cell(full, mode, kind, k) for kind in ("evidence", "session", "answer") for k in ks_]
        lines.append("| %s | %d | %s |" % (mode, c["questions"], " | ".join(cells)))
    lines.append("")

cmds = text("commands.txt")
if cmds:
    lines += ["Commands (from the repository root):", "", "```", cmds, "```", ""]
notes = text("notes.md")
if notes:
    lines += [notes, ""]
lines.append("<!-- /eval-graphiti -->")
section = "\n".join(lines)
body = results.read_text() if results.exists() else ""
pattern = re.compile(r"<!-- eval-graphiti -->.*?<!-- /eval-graphiti -->", re.S)
body = pattern.sub(lambda _: section, body) if pattern.search(body) else body.rstrip() + "\n\n" + section + "\n"
results.write_text(body)
print(section)
