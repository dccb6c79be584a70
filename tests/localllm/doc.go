// Package localllm is the CI smoke test of a real language model: `backfill run` on the first
// episodes of the demo (chosen so that, with the offline responder, every task of two-call
// extraction is asked at least once) against the small model that scripts/local_llm.sh serves
// with llama.cpp's OpenAI-compatible server (SmolLM2-135M in CI; BACKFILL_LOCAL_LLM_URL and
// BACKFILL_LOCAL_LLM_MODEL, see internal/testenv). The answers of so small a model are poor, so
// the test checks only mechanics any model must satisfy: the run ends with exit 0 or 3; every
// answer stored in the cache validates against its task's schema; the failed units are recorded
// with a reason and the next run re-runs exactly those of the extraction stage (the test's proxy
// empties the first run's extraction answers of two episodes, so that path is taken whatever
// the model answers); the report's token counts are the ones the server reported. It logs the
// counts and times it saw. There is no library code here.
package localllm
