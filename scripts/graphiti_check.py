#!/usr/bin/env python3
"""Search a graph that backfill loaded into Neo4j or FalkorDB with Graphiti's own search code.

Usage: graphiti_check.py [--falkordb] [QUERY ...]

Environment:
  BACKFILL_NEO4J_URI   Bolt URI of the Neo4j server holding the graph (required without --falkordb)
  NEO4J_USER, NEO4J_PASSWORD   credentials (default: none; the test server has no auth)
  BACKFILL_FALKORDB_URI  redis:// URI of the FalkorDB server holding the graph (with --falkordb);
                       Graphiti's FalkorDriver reads each group from the graph named after it
  EMBEDDER_BASE_URL    OpenAI-compatible embeddings endpoint, e.g. http://127.0.0.1:8089/v1
                       (`backfill llm-stub` serves the same hashing embedder the offline run used)
  EMBEDDER_MODEL       embedding model name (default hashing-v1)
  EMBEDDING_DIM        embedding dimensions of the graph (default 256)
  GROUP_IDS            comma-separated groups to search (default: every group whose facts have
                       EMBEDDING_DIM-sized embeddings)

Graphiti.search() runs its hybrid edge search (BM25 over the edge_name_and_fact full-text index
plus cosine similarity over fact_embedding, fused by reciprocal rank) restricted to the groups
found in the graph. It embeds each query through the embeddings endpoint and needs no LLM: the
LLM client and the reranker are configured with dummy keys pointing at the same loopback stub.
Prints every fact returned and exits 1 when no query returned any.

With --falkordb it first runs FalkorDriver.build_indices_and_constraints() in every group's graph
and fails when that changed the graph's indexes (CALL db.indexes()): backfill must have created
exactly Graphiti's indexes already.
"""

import asyncio
import os
import sys

DEFAULT_QUERIES = [
    "Where does Alice work?",
    "Where does Alice live?",
    "Who is on the Payments team?",
    "order status",
]


async def falkor_group_ids(driver, dims):
    """FalkorDB: every graph whose facts carry embeddings of the given size (each group is the
    graph of its name; graphiti's default group "_" lives in default_db)."""
    out = []
    for g in sorted(await driver.client.list_graphs()):
        records, _, _ = await driver.clone(database=g).execute_query(
            "MATCH ()-[e:RELATES_TO]->() WHERE e.fact_embedding IS NOT NULL RETURN e.fact_embedding AS v LIMIT 1"
        )
        if records and len(records[0]["v"]) == dims:
            out.append("_" if g == "default_db" else g)
    return out


async def falkor_indexes(driver, group):
    records, _, _ = await driver.clone(database=group).execute_query(
        "CALL db.indexes() YIELD label, properties, types, entitytype RETURN entitytype, label, properties, types ORDER BY entitytype, label"
    )
    return [tuple(str(v) for v in r.values()) for r in records]


async def check_falkor_indexes(driver, groups):
    """Runs Graphiti's own index creation in every group's graph; returns the graphs whose
    indexes it changed."""
    changed = []
    for g in groups:
        before = await falkor_indexes(driver, g)
        await driver.clone(database=g).build_indices_and_constraints()
        after = await falkor_indexes(driver, g)
        if before != after:
            changed.append(g)
            print(f"graph {g}: Graphiti's build_indices_and_constraints changed the indexes:\n  before {before}\n  after  {after}")
    return changed


async def group_ids(graphiti, dims):
    """The groups to search: $GROUP_IDS (comma-separated), else every group whose facts all
    carry embeddings of the given size (a shared server may hold other graphs too)."""
    if os.environ.get("GROUP_IDS"):
        return os.environ["GROUP_IDS"].split(",")
    if graphiti.driver.provider.value == "falkordb":
        return await falkor_group_ids(graphiti.driver, dims)
    records, _, _ = await graphiti.driver.execute_query(
        "MATCH ()-[e:RELATES_TO]->() WITH e.group_id AS g, collect(DISTINCT size(e.fact_embedding)) AS sizes "
        "WHERE sizes = [$dims] RETURN g ORDER BY g",
        params={"dims": dims},
    )
    return [r["g"] for r in records]


async def main(queries, falkordb):
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client import LLMConfig, OpenAIClient

    base = os.environ.get("EMBEDDER_BASE_URL", "http://127.0.0.1:8089/v1")
    dims = int(os.environ.get("EMBEDDING_DIM", "256"))
    stub = LLMConfig(api_key="unused", model="unused", small_model="unused", base_url=base)
    if falkordb:
        from urllib.parse import urlparse

        from graphiti_core.driver.falkordb_driver import FalkorDriver

        u = urlparse(os.environ["BACKFILL_FALKORDB_URI"])
        server = {"graph_driver": FalkorDriver(host=u.hostname, port=u.port or 6379)}
    else:
        server = {
            "uri": os.environ["BACKFILL_NEO4J_URI"],
            "user": os.environ.get("NEO4J_USER", ""),
            "password": os.environ.get("NEO4J_PASSWORD", ""),
        }
    graphiti = Graphiti(
        **server,
        llm_client=OpenAIClient(config=stub),
        embedder=OpenAIEmbedder(
            config=OpenAIEmbedderConfig(
                api_key="unused",
                base_url=base,
                embedding_model=os.environ.get("EMBEDDER_MODEL", "hashing-v1"),
                embedding_dim=dims,
            )
        ),
        cross_encoder=OpenAIRerankerClient(config=stub),
    )
    try:
        groups = await group_ids(graphiti, dims)
        print(f"graph groups: {', '.join(groups)}")
        if falkordb and await check_falkor_indexes(graphiti.driver, groups):
            return 1
        total = 0
        for q in queries:
            edges = await graphiti.search(q, group_ids=groups, num_results=5)
            print(f"\nquery: {q!r}: {len(edges)} facts")
            for e in edges:
                total += 1
                valid = e.valid_at.isoformat() if e.valid_at else "-"
                invalid = e.invalid_at.isoformat() if e.invalid_at else "-"
                print(f"  [{e.group_id}] {e.name}: {e.fact} (valid {valid} .. {invalid}; episodes {len(e.episodes)})")
        print(f"\ngraphiti search returned {total} facts from {len(queries)} queries")
        return 0 if total > 0 else 1
    finally:
        # On FalkorDB every driver clone (one per group searched) starts Graphiti's index
        # creation as a background task; let them end before the connection closes.
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        await asyncio.gather(*others, return_exceptions=True)
        await graphiti.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    falkordb = "--falkordb" in args
    args = [a for a in args if a != "--falkordb"]
    sys.exit(asyncio.run(main(args or DEFAULT_QUERIES, falkordb)))
