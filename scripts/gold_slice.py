#!/usr/bin/env python3
"""Writes a slice of the gold set: the episodes of some of its groups.

Usage: gold_slice.py "GROUP ..." OUT_DIR

OUT_DIR receives conversations.jsonl and records.jsonl (examples/gold/*.jsonl's rows of those
groups, in their order; a file with no row is not written), gold.yaml (examples/gold/gold.yaml's
relations and aliases, and its episodes of those groups only, so that recall counts only the
facts of the slice) and job.yaml (jobs/examples/gold.yaml reading the written files by their
absolute paths). A group the gold set does not have is an error. scripts/eval_graphiti.sh uses
it for EVAL_GOLD_GROUPS: a side by side on fewer episodes when the model's hours are short.
"""
import json
import os
import re
import sys

GOLD_DIR = "examples/gold"
JOB = "jobs/examples/gold.yaml"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    groups = sys.argv[1].split()
    out = os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    seen = set()
    written = {}
    for name in ("conversations.jsonl", "records.jsonl"):
        rows = []
        with open(os.path.join(GOLD_DIR, name), encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                group = json.loads(line)["group_id"]
                seen.add(group)
                if group in groups:
                    rows.append(line if line.endswith("\n") else line + "\n")
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.remove(path)
        if rows:
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(rows)
            written[name] = path
    missing = [g for g in groups if g not in seen]
    if missing:
        sys.exit("gold_slice.py: the gold set has no group %s (it has %s)" % (", ".join(missing), ", ".join(sorted(seen))))

    # gold.yaml: everything before "episodes:" as it is, then the items of the groups wanted. An
    # item starts with "  - " at the list's indent; comment lines between items are dropped.
    text = open(os.path.join(GOLD_DIR, "gold.yaml"), encoding="utf-8").read()
    head, sep, body = text.partition("\nepisodes:\n")
    if not sep:
        sys.exit("gold_slice.py: no episodes: list in %s/gold.yaml" % GOLD_DIR)
    items, item = [], None
    for line in body.splitlines(keepends=True):
        if line.startswith("  - "):
            item = [line]
            items.append(item)
        elif line.startswith("  #"):
            item = None
        elif item is not None:
            item.append(line)
    kept = 0
    with open(os.path.join(out, "gold.yaml"), "w", encoding="utf-8") as f:
        f.write("# A slice of examples/gold/gold.yaml (scripts/gold_slice.py): groups %s.\n" % " ".join(groups))
        f.write(head + "\nepisodes:\n")
        for it in items:
            m = re.search(r"\bgroup: *([^,\s}]+)", "".join(it))
            if m and m.group(1) in groups:
                f.writelines(it)
                kept += 1
    if kept == 0:
        sys.exit("gold_slice.py: no gold episode of %s" % " ".join(groups))

    # job.yaml: the gold job with each source's path made absolute, sources with no row left out.
    job = open(JOB, encoding="utf-8").read()
    src_head, _, rest = job.partition("sources:\n")
    srcs, tail = re.split(r"\n(?=\S)", rest, maxsplit=1)
    blocks = re.split(r"(?m)^(?=  - path: )", srcs)
    keep = []
    for b in blocks:
        m = re.match(r"  - path: examples/gold/(\S+)", b)
        if not m:
            continue
        if m.group(1) in written:
            keep.append(b.replace("examples/gold/" + m.group(1), written[m.group(1)], 1).rstrip("\n") + "\n")
    with open(os.path.join(out, "job.yaml"), "w", encoding="utf-8") as f:
        f.write("# A slice of jobs/examples/gold.yaml (scripts/gold_slice.py): groups %s; score it with gold.yaml\n"
                "# beside this file.\n" % " ".join(groups))
        f.write(src_head + "sources:\n" + "".join(keep) + tail)
    print("gold_slice.py: %d gold episodes of %s in %s" % (kept, " ".join(groups), out), file=sys.stderr)


if __name__ == "__main__":
    main()
