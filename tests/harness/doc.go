// Package harness drives the real `backfill` binary for the reliability tests (tests/crash,
// tests/badinput) and the benchmarks (bench/).
//
// Contract:
//   - Build compiles cmd/backfill once into a directory and returns the binary's path;
//     BuildCommand compiles another command of the module, such as fusefs (a minimal FUSE file
//     system that runs a command while it is mounted, for the network file system check).
//   - Start runs the binary as a subprocess and follows its log (stderr) live: every
//     "stage starting" and "stage finished" line becomes an Event with its time since the start,
//     so a caller can wait for a stage and signal the process in the middle of it. Wait returns
//     the exit code, the output, the stage events and the peak RSS (from the kernel's rusage,
//     and per stage from sampling /proc/PID/status when asked).
//   - Recorder wraps an LLM server (providers/stub) and remembers every good answer it gave under the
//     keys the client caches it by (llm.CacheKey for chat, embed.CacheKey per embedded text), so
//     a test can tell whether a request repeats an answer already committed to a checkpoint,
//     with the usage block the server reported.
//   - CompareDirs compares two export directories file by file, byte for byte.
//   - Neo4jQuery, Neo4jSnapshot and Graph read a Neo4j server; WaitNeo4jCount polls a count
//     through one connection until a running stage has written what a test aims a fault at.
//   - DialFalkorDB connects to a FalkorDB server: Graphs, Clear, Query, Int and Snapshot read or
//     empty its graphs, Exec writes into one; ClearFalkorDB empties a server by its URI.
//   - GraphitiStub is a scripted loopback model for graphiti-core's prompts (rules by response
//     model and prompt section; the schema's smallest answer otherwise; the offline hashing
//     embeddings), so a test can have graphiti-core itself write a known graph (tests/graphiti).
//
// Nothing here reads global state: paths, environment and seeds come from the caller.
package harness
