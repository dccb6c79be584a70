#!/usr/bin/env python3
"""Search a graph that backfill loaded into Neo4j with Graphiti's own search code.

Usage: graphiti_check.py [QUERY ...]

Environment:
  BACKFILL_NEO4J_URI   Bolt URI of the Neo4j server holding the graph (required)
  NEO4J_USER, NEO4J_PASSWORD   credentials (default: none; the test server has no auth)
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


async def group_ids(graphiti, dims):
    """The groups to search: $GROUP_IDS (comma-separated), else every group whose facts all
    carry embeddings of the given size (a shared server may hold other graphs too)."""
    if os.environ.get("GROUP_IDS"):
        return os.environ["GROUP_IDS"].split(",")
    records, _, _ = await graphiti.driver.execute_query(
        "MATCH ()-[e:RELATES_TO]->() WITH e.group_id AS g, collect(DISTINCT size(e.fact_embedding)) AS sizes "
        "WHERE sizes = [$dims] RETURN g ORDER BY g",
        params={"dims": dims},
    )
    return [r["g"] for r in records]


async def main(queries):
    os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.openai_reranker_client import OpenAIRerankerClient
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
    from graphiti_core.llm_client import LLMConfig, OpenAIClient

    uri = os.environ["BACKFILL_NEO4J_URI"]
    base = os.environ.get("EMBEDDER_BASE_URL", "http://127.0.0.1:8089/v1")
    dims = int(os.environ.get("EMBEDDING_DIM", "256"))
    stub = LLMConfig(api_key="unused", model="unused", small_model="unused", base_url=base)
    graphiti = Graphiti(
        uri,
        os.environ.get("NEO4J_USER", ""),
        os.environ.get("NEO4J_PASSWORD", ""),
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
        await graphiti.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:] or DEFAULT_QUERIES)))
