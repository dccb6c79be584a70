#!/usr/bin/env python3
"""Build a graph with graphiti-core's own add_episode or add_episode_bulk, counting its LLM calls.

Usage: eval_graphiti.py --mode add_episode|bulk --out DIR [--jsonl FILE:SOURCE:DESCRIPTION ...]
       [--locomo FILE]

Run by scripts/eval_graphiti.sh (`make eval-graphiti`) and tests/graphiti, in the venv of
scripts/graphiti_venv.sh. The episodes are read as backfill's jobs read them, so both graphs have
the same groups, episode names and reference times:

  --jsonl FILE:SOURCE:DESCRIPTION  JSON Lines with group_id, reference_time (RFC 3339),
      record_key, and speaker with content (a message: "speaker: content", as Graphiti writes
      messages) or record (a JSON episode, the record as compact JSON), as jobs/examples/gold.yaml
      maps examples/gold/*.jsonl. SOURCE is message or json.
  --locomo FILE  a LoCoMo file as backfill's importer reads it: one message episode per turn
      ("speaker: text", with " [shares an image: caption]" when the turn has one), the group the
      sample_id, the reference time the session's date_time (naive, taken as UTC, the job's
      timezone), the source description "LoCoMo GROUP session N".

Every episode is named by its record key (sample_id/dia_id for LoCoMo), which Graphiti stores as
the Episodic node's name and `backfill eval` reads as the record key of a Graphiti graph.

--mode add_episode adds the episodes one at a time, group after group (the smaller first, so a
run still going has finished groups to score; each group is a graph of its own), each group in
reference time order (ties in input order); --mode bulk hands each group's episodes to one
add_episode_bulk call. An episode whose add_episode failed (every episode of a group whose
add_episode_bulk failed) is recorded and stored as its Episodic node alone, so the graph holds
every episode and `backfill eval --gold` counts its facts as missed, as backfill's graph keeps
the episode of a failed unit; the run goes on. The LLM client is graphiti-core's OpenAIGenericClient at temperature 0,
pointed at the counting shim (graphiti_shim.py, which says what it changes in a request) in front
of --llm-url; embeddings come from --embedder-url and --embedder-model (scripts/local_embed.sh's model; or `backfill llm-stub`: the hashing embedder of
backfill's offline provider, so `backfill eval` embeds questions the same way). Graphiti runs one
coroutine at a time (max_coroutines 1), as backfill's eval-local runs use llm.concurrency 1.

DIR receives progress.jsonl (a line per episode, or per group in bulk mode: calls, prompt and
completion tokens, seconds, and the error of a failed one, with the Graphiti function it
failed in), calls.jsonl (a line per LLM call) and summary.json (the totals, the failures, and
calls and tokens by response model). A request may take --timeout seconds (default 3600: a
1.5B model on 2 busy cores evaluates a few tokens a second, and a timeout would be the
machine's failure, not Graphiti's). A run started again skips
what progress.jsonl lists, so an interrupted run resumes (an episode cut off mid-way is added
again).

Environment: BACKFILL_NEO4J_URI (required), NEO4J_USER, NEO4J_PASSWORD (default: none).
"""

import argparse
import asyncio
import json
import os
import sys
import time
import traceback
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graphiti_shim import Shim  # noqa: E402


def read_jsonl(spec):
    path, source, desc = (spec.split(":", 2) + ["", ""])[:3]
    out = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            r = json.loads(line)
            if "record" in r:
                content = json.dumps(r["record"], ensure_ascii=False, separators=(",", ":"))
            elif r.get("speaker"):
                content = "%s: %s" % (r["speaker"], r["content"])
            else:
                content = r["content"]
            out.append({"group": r["group_id"], "name": r.get("record_key") or "%s:%d" % (os.path.basename(path), i),
                        "time": datetime.fromisoformat(r["reference_time"].replace("Z", "+00:00")).astimezone(timezone.utc),
                        "source": source or ("json" if "record" in r else "message"), "description": desc or "records",
                        "content": content})
    return out


def read_locomo(path):
    out = []
    for s in json.load(open(path)):
        sid, conv = str(s["sample_id"]), s["conversation"]
        sessions = sorted(int(k.split("_")[1]) for k in conv if k.startswith("session_") and k.split("_")[1].isdigit()
                          and not k.endswith("date_time"))
        for n in sessions:
            at = datetime.strptime(conv["session_%d_date_time" % n], "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
            for t in conv["session_%d" % n]:
                text = t["text"] + (" [shares an image: %s]" % t["blip_caption"] if t.get("blip_caption") else "")
                out.append({"group": sid, "name": "%s/%s" % (sid, t["dia_id"]), "time": at, "source": "message",
                            "description": "LoCoMo %s session %d" % (sid, n), "content": "%s: %s" % (t["speaker"], text)})
    return out


def where(e):
    """The innermost graphiti_core function of a failure's traceback."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if "graphiti_core" in f.filename]
    f = frames[-1] if frames else None
    return "%s (%s:%d)" % (f.name, f.filename.split("graphiti_core/")[-1], f.lineno) if f else ""


def error_of(e):
    return {"error": ("%s: %s" % (type(e).__name__, e))[:800], "where": where(e)}


async def build(args, episodes, shim, done, progress):
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client import LLMConfig
    from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
    from graphiti_core.nodes import EpisodeType
    from graphiti_core.utils.bulk_utils import RawEpisode
    from openai import AsyncOpenAI

    cfg = LLMConfig(api_key="unused", model=args.model, small_model=args.model, base_url=shim.url, temperature=0)
    llm = OpenAIGenericClient(config=cfg, client=AsyncOpenAI(api_key="unused", base_url=shim.url, timeout=args.timeout))
    graphiti = Graphiti(
        os.environ["BACKFILL_NEO4J_URI"], os.environ.get("NEO4J_USER", ""), os.environ.get("NEO4J_PASSWORD", ""),
        llm_client=llm,
        embedder=OpenAIEmbedder(config=OpenAIEmbedderConfig(api_key="unused", base_url=args.embedder_url,
                                                            embedding_model=args.embedder_model, embedding_dim=args.dims)),
        cross_encoder=OpenAIRerankerClient(config=cfg),
        max_coroutines=1,
    )
    try:
        await graphiti.build_indices_and_constraints()
        groups = {}
        for i, ep in enumerate(episodes):
            groups.setdefault(ep["group"], []).append((ep["time"], i, ep))
        for g in sorted(groups, key=lambda g: (len(groups[g]), g)):  # small groups first: a run still going scores by finished groups
            eps = [ep for _, _, ep in sorted(groups[g], key=lambda x: (x[0], x[1]))]
            if args.mode == "bulk":
                if g in done:
                    continue
                raw = [RawEpisode(name=ep["name"], content=ep["content"], source_description=ep["description"],
                                  source=EpisodeType(ep["source"]), reference_time=ep["time"]) for ep in eps]
                if not await step(shim, progress, {"group": g, "episodes": len(eps)}, graphiti.add_episode_bulk(raw, group_id=g)):
                    for ep in eps:
                        await store_bare(graphiti, g, ep)
                continue
            for ep in eps:
                if (g, ep["name"]) in done:
                    continue
                if not await step(shim, progress, {"group": g, "name": ep["name"], "episodes": 1}, graphiti.add_episode(
                        name=ep["name"], episode_body=ep["content"], source_description=ep["description"],
                        reference_time=ep["time"], source=EpisodeType(ep["source"]), group_id=g)):
                    await store_bare(graphiti, g, ep)
        records, _, _ = await graphiti.driver.execute_query(
            "MATCH (n) WHERE n:Episodic OR n:Entity OR n:Community WITH labels(n) AS l, count(*) AS c "
            "RETURN l, c UNION ALL MATCH ()-[r:RELATES_TO]->() RETURN ['RELATES_TO'] AS l, count(r) AS c")
        return {",".join(sorted(x for x in r["l"] if x in ("Episodic", "Entity", "Community", "RELATES_TO"))) or "other": r["c"]
                for r in records}
    finally:
        await graphiti.close()


async def store_bare(graphiti, group, ep):
    """Stores a failed episode's Episodic node alone (unless Graphiti stored it), so the graph holds
    every episode and the scores count its facts as missed, as backfill's graph keeps the episode
    of a failed unit."""
    from graphiti_core.nodes import EpisodeType, EpisodicNode

    records, _, _ = await graphiti.driver.execute_query(
        "MATCH (e:Episodic {group_id: $g, name: $n}) RETURN count(e) AS c", g=group, n=ep["name"])
    if records[0]["c"] == 0:
        await EpisodicNode(name=ep["name"], group_id=group, labels=[], source=EpisodeType(ep["source"]), content=ep["content"],
                           source_description=ep["description"], created_at=datetime.now(timezone.utc),
                           valid_at=ep["time"]).save(graphiti.driver)


async def step(shim, progress, row, coro):
    """Runs one add_episode or add_episode_bulk call under its own shim label and records it;
    reports whether it succeeded."""
    label = row.get("name") or row["group"]
    shim.label = label
    start = time.time()
    try:
        await coro
    except Exception as e:  # noqa: BLE001 - a failed episode is recorded, the run goes on
        row.update(error_of(e))
    row["seconds"] = round(time.time() - start, 3)
    row.update({k: v for k, v in shim.counts(label).items() if k != "seconds"})
    with open(progress, "a") as f:
        f.write(json.dumps(row) + "\n")
    state = "FAILED " + row["error"][:200] if "error" in row else "ok"
    print("%s %s: %.0f s, %d calls, %d/%d tokens, %s" % (row["group"], row.get("name", "(bulk)"), row["seconds"],
                                                        row["calls"], row["prompt_tokens"], row["completion_tokens"], state),
          flush=True)
    return "error" not in row


def summarize(out, episodes, graph, mode):
    progress, calls = os.path.join(out, "progress.jsonl"), os.path.join(out, "calls.jsonl")
    rows = [json.loads(line) for line in open(progress)] if os.path.exists(progress) else []
    s = {"mode": mode, "episodes": len(episodes), "graph": graph}
    for k in ("calls", "prompt_tokens", "completion_tokens", "cut_at_max_tokens", "errors", "seconds"):
        s[k] = round(sum(r.get(k, 0) for r in rows), 3)
    s["done"] = sum(r["episodes"] for r in rows)
    s["failed"] = sum(r["episodes"] for r in rows if "error" in r)
    s["failures"] = [{k: r.get(k) for k in ("group", "name", "error", "where")} for r in rows if "error" in r]
    s["by_task"] = {}
    for line in open(calls) if os.path.exists(calls) else []:
        c = json.loads(line)
        t = s["by_task"].setdefault(c["task"], {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cut_at_max_tokens": 0, "errors": 0})
        t["calls"] += 1
        t["prompt_tokens"] += c["prompt_tokens"]
        t["completion_tokens"] += c["completion_tokens"]
        t["cut_at_max_tokens"] += c["finish_reason"] == "length"
        t["errors"] += c["status"] >= 400
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", choices=["add_episode", "bulk"], required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--jsonl", action="append", default=[])
    p.add_argument("--locomo")
    p.add_argument("--llm-url", required=True, help="the model server's OpenAI base URL (…/v1)")
    p.add_argument("--model", required=True)
    p.add_argument("--frequency-penalty", type=float, default=0.0)
    p.add_argument("--embedder-url", required=True)
    p.add_argument("--embedder-model", default="hashing-v1")
    p.add_argument("--dims", type=int, default=256)
    p.add_argument("--timeout", type=float, default=3600, help="seconds a request may take (the shim and the client)")
    args = p.parse_args()
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    os.environ.setdefault("SEMAPHORE_LIMIT", "1")
    episodes = [ep for spec in args.jsonl for ep in read_jsonl(spec)] + (read_locomo(args.locomo) if args.locomo else [])
    if not episodes:
        sys.exit("eval_graphiti.py: no episodes (give --jsonl or --locomo)")
    os.makedirs(args.out, exist_ok=True)
    progress = os.path.join(args.out, "progress.jsonl")
    done = set()
    if os.path.exists(progress):
        for line in open(progress):
            r = json.loads(line)
            done.add(r["group"] if args.mode == "bulk" else (r["group"], r["name"]))
    shim = Shim(args.llm_url, args.frequency_penalty, os.path.join(args.out, "calls.jsonl"), timeout=args.timeout).start()
    try:
        graph = asyncio.run(build(args, episodes, shim, done, progress))
    finally:
        shim.stop()
    s = summarize(args.out, episodes, graph, args.mode)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(s, f, indent=2)
    print(json.dumps({k: v for k, v in s.items() if k not in ("failures", "by_task")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
