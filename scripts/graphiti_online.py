#!/usr/bin/env python3
"""Write one episode into a backfilled Neo4j group with graphiti-core's own add_episode.

Usage: graphiti_online.py SCRIPT.json

The LLM is scripted (ScriptedLLM): no model runs, every structured answer add_episode asks for
comes from SCRIPT.json, so the test knows what Graphiti writes:

  {"group": "alice", "name": "online-1", "source": "message",
   "body": "Alice: I left Naver and joined Toss.", "reference_time": "2024-06-01T00:00:00Z",
   "entities": ["Alice", "Toss"],
   "facts": [{"source": "Alice", "target": "Toss", "relation": "WORKS_AT",
              "fact": "Alice works at Toss."}],
   "contradicts": "Naver",
   "summaries": {"Alice": "Alice works at Toss since June 2024."},
   "context_speakers": ["Ben"]}

Entities are extracted as the default type; node deduplication is left to Graphiti (an entity of
the same name in the group is reused by exact match); every fact offered for resolution whose text
contains "contradicts" is answered as contradicted, so Graphiti closes it (invalid_at is the new
fact's valid_at, the reference time). Summaries are the answers to its summary calls. The
speakers of "context_speakers" found as "speaker: " in the extraction prompt (the previous
episodes Graphiti shows) are reported. Embeddings
come from EMBEDDER_BASE_URL (`backfill llm-stub`).

Prints JSON: the episode uuid, the entities and facts the episode produced (uuid, name/fact), the
facts it closed, and the prompts asked by kind. Exits 1 when no fact matching "contradicts" was
offered (the scenario did not happen as scripted).

Environment: BACKFILL_NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, EMBEDDER_BASE_URL, EMBEDDER_MODEL,
EMBEDDING_DIM.
"""

import asyncio
import json
import os
import re
import sys
from datetime import datetime


def scripted_client(script, asked, closed_offers, seen):
    from graphiti_core.llm_client import LLMClient, LLMConfig

    class ScriptedLLM(LLMClient):
        async def _generate_response(self, messages, response_model=None, max_tokens=0, model_size=None, *, model=None):
            kind = response_model.__name__ if response_model is not None else "text"
            asked[kind] = asked.get(kind, 0) + 1
            prompt = "\n".join(m.content for m in messages)
            ref = script["reference_time"]
            if kind in ("ExtractedEntities", "CombinedExtraction"):
                # The previous episodes Graphiti shows the extraction: who spoke in them?
                for who in script.get("context_speakers", []):
                    if who + ": " in prompt and who not in seen:
                        seen.append(who)
            if kind == "ExtractedEntities":
                return {"extracted_entities": [{"name": n, "entity_type_id": 0} for n in script["entities"]]}
            if kind == "CombinedExtraction":
                return {
                    "extracted_entities": [{"name": n, "entity_type_id": 0} for n in script["entities"]],
                    "edges": [
                        {"source_entity_name": f["source"], "target_entity_name": f["target"],
                         "relation_type": f["relation"], "fact": f["fact"]}
                        for f in script["facts"]
                    ],
                }
            if kind == "ExtractedEdges":
                return {"edges": [
                    {"source_entity_name": f["source"], "target_entity_name": f["target"],
                     "relation_type": f["relation"], "fact": f["fact"]}
                    for f in script["facts"]
                ]}
            if kind == "NodeResolutions":
                return {"entity_resolutions": []}
            if kind == "EdgeTimestamps":
                return {"valid_at": ref, "invalid_at": None}
            if kind == "BatchEdgeTimestamps":
                return {"timestamps": [{"valid_at": ref, "invalid_at": None} for _ in script["facts"]]}
            if kind == "EdgeDuplicate":
                hit = []
                # The candidates are rendered as JSON or as a Python list of dicts.
                for idx, _, fact in re.findall(r"""['"]idx['"]:\s*(\d+),\s*['"]fact['"]:\s*(['"])(.*?)\2\}""", prompt):
                    if script.get("contradicts") and script["contradicts"] in fact:
                        hit.append(int(idx))
                        closed_offers.append(fact)
                if not hit:
                    offered = prompt[prompt.find("<EXISTING FACTS>"):prompt.find("</FACT INVALIDATION CANDIDATES>")]
                    print(f"no fact containing {script.get('contradicts')!r} offered to resolve:\n{offered}", file=sys.stderr)
                return {"duplicate_facts": [], "contradicted_facts": hit}
            if kind == "SummarizedEntities":
                return {"summaries": [
                    {"name": n, "summary": s} for n, s in script.get("summaries", {}).items() if n in prompt
                ]}
            if kind in ("EntitySummary", "Summary"):
                return {"summary": ""}
            return {}

    return ScriptedLLM(LLMConfig(api_key="unused", model="scripted", small_model="scripted"))


async def main(path):
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client import LLMConfig
    from graphiti_core.nodes import EpisodeType

    with open(path) as f:
        script = json.load(f)
    asked, closed_offers, seen = {}, [], []
    base = os.environ.get("EMBEDDER_BASE_URL", "http://127.0.0.1:8099/v1")
    graphiti = Graphiti(
        os.environ["BACKFILL_NEO4J_URI"],
        os.environ.get("NEO4J_USER", ""),
        os.environ.get("NEO4J_PASSWORD", ""),
        llm_client=scripted_client(script, asked, closed_offers, seen),
        embedder=OpenAIEmbedder(config=OpenAIEmbedderConfig(
            api_key="unused", base_url=base, embedding_model=os.environ.get("EMBEDDER_MODEL", "hashing-v1"),
            embedding_dim=int(os.environ.get("EMBEDDING_DIM", "256")))),
        cross_encoder=OpenAIRerankerClient(config=LLMConfig(api_key="unused", base_url=base)),
    )
    try:
        # What an online deployment runs at start-up: it must succeed on backfill's schema.
        await graphiti.build_indices_and_constraints()
        res = await graphiti.add_episode(
            name=script["name"],
            episode_body=script["body"],
            source=EpisodeType(script.get("source", "message")),
            source_description=script.get("description", "online"),
            reference_time=datetime.fromisoformat(script["reference_time"].replace("Z", "+00:00")),
            group_id=script["group"],
        )
        closed, _, _ = await graphiti.driver.execute_query(
            "MATCH ()-[e:RELATES_TO {group_id: $g}]->() WHERE e.invalid_at IS NOT NULL AND e.fact CONTAINS $c "
            "RETURN e.uuid AS uuid, e.fact AS fact, toString(e.invalid_at) AS invalid_at, toString(e.expired_at) AS expired_at",
            g=script["group"], c=script.get("contradicts") or "\u0000",
        )
        out = {
            "episode": res.episode.uuid,
            "content": res.episode.content,
            "entities": [{"uuid": n.uuid, "name": n.name} for n in res.nodes],
            "facts": [{"uuid": e.uuid, "fact": e.fact} for e in res.edges],
            "mentions": [e.uuid for e in res.episodic_edges],
            "closed": [dict(r) for r in closed],
            "asked": asked,
            "offered": closed_offers,
            "speakers_in_context": seen,
        }
        print(json.dumps(out, indent=1, sort_keys=True))
        return 0 if closed_offers or not script.get("contradicts") else 1
    finally:
        await graphiti.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
