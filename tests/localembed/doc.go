// Package localembed is the CI smoke test of a real embedding model: backfill's embeddings
// client (embed.Client, the one a job's embedder uses) against all-MiniLM-L6-v2 as
// scripts/local_embed.sh serves it (BACKFILL_LOCAL_EMBED_URL and BACKFILL_LOCAL_EMBED_MODEL, see
// internal/testenv). It checks what any correct serving of that model gives: 384-dimensional
// unit vectors, sentence-transformers' documented quick-start similarities, and two paraphrases
// closer than two unrelated sentences. There is no library code here.
package localembed
