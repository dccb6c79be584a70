// Package living tests backfill loading into a graph that other writers share
// (docs/living-graphs.md): graphiti-core's own add_episode (scripts/graphiti_online.sh, a
// scripted LLM) writing into a backfilled group, and two backfill loads of the same groups at
// once. There is no library code here.
//
// Contract checked:
//   - TestOnlineWritesSurviveBackfill (real Neo4j, graphiti-core 0.31.2 from the cache's venv,
//     installed from PyPI on the first run): the demo's conversations are loaded; Graphiti adds
//     an episode to group alice that adds an entity, a fact and mentions, closes backfill's
//     "Alice works at Naver" fact and extends Alice's summary. Then backfill runs again with a
//     new line for the group, and again with sink.reload: every time Graphiti's episode, entity,
//     fact and mentions are all still there, the fact it closed stays closed with its times,
//     backfill's new episode is in, and the report counts what it kept (load.foreign_kept).
//   - TestTwoLoadsOneGraph (real Neo4j): two stores load the same groups at once; one waits
//     for the other's leases or fails naming it, the database holds each uuid once, and a plain
//     re-run of either leaves the graph a single load gives. A database an older version
//     duplicated (every element written twice, no constraint) is repaired by the next load.
//
// A test fails when BACKFILL_NEO4J_URI is unset, with how to start the server, unless
// BACKFILL_SKIP_INTEGRATION=1.
package living
