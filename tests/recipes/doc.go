// Package recipes runs the recipes the server scripts print, as a user runs them: `eval` the
// script's output, then a backfill command with the flags and variables it exported. There is no
// library code here.
//
// Contract checked:
//   - Neo4j (TestNeo4jBrowserRecipe, the recipe of docs/getting-started.md, which the test
//     requires to be the lines it runs): `scripts/neo4j.sh browser`, on free ports with a private
//     state directory, prints BACKFILL_NEO4J_URI, BACKFILL_NEO4J_FLAGS and BACKFILL_NEO4J_BROWSER;
//     `backfill run jobs/examples/demo.yaml $BACKFILL_NEO4J_FLAGS` loads the demo graph into it;
//     the Browser URL serves Neo4j Browser (the page and every script it names), the Bolt port
//     answers the WebSocket upgrade the Browser connects with, and the server's HTTP query API
//     returns the graph the checkpoint holds (its entities and valid facts, counted). The test
//     stops its server.
//   - S3 (TestS3CheckpointRecipe): on the shared versitygw, `scripts/versitygw.sh bucket NAME`
//     creates a bucket and says it exists the second time; with only what `scripts/versitygw.sh
//     env` exports (no AWS variables, files or instance role of the machine), `backfill run
//     jobs/examples/demo.yaml --checkpoint s3://NAME/demo.db $BACKFILL_S3_FLAGS` and `backfill
//     status` on the same checkpoint succeed.
//
// Both need the integration servers (internal/testenv: they fail naming how to start them, or
// skip with BACKFILL_SKIP_INTEGRATION=1); the Neo4j test also needs the launcher jar the shared
// server was started from.
package recipes
