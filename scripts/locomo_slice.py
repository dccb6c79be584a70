#!/usr/bin/env python3
"""Usage: locomo_slice.py LOCOMO_JSON SESSIONS OUT_JSON

Writes the LoCoMo slice that `make eval-local` and `make eval-graphiti` build: the first
conversation's first SESSIONS sessions, with the questions whose evidence lies in them (and no
summaries). The slice goes to a temporary file outside the clone (the dataset's licence:
evaluation use, no copies in the repository).
"""
import json
import re
import sys

src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
c = json.load(open(src))[0]


def keep(k):
    return not re.fullmatch(r"session_\d+(_date_time)?", k) or int(k.split("_")[1]) <= n


def inside(e):
    m = re.match(r"D(\d+):", e)
    return m and int(m.group(1)) <= n


c["conversation"] = {k: v for k, v in c["conversation"].items() if keep(k)}
c["qa"] = [q for q in c["qa"] if q.get("evidence") and all(inside(e) for e in q["evidence"])]
for k in ("event_summary", "observation", "session_summary"):
    c.pop(k, None)
json.dump([c], open(dst, "w"))
