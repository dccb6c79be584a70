// Package jobs is the job spec and the runner. A job is a YAML file (Job): its sources and field
// mapping, timezone, record-time mode, LLM and embedder settings, ontology, stage options, sink
// and limits. Load expands ${VAR} and ${VAR:-default} from the environment, rejects unknown keys
// with their line, applies --set overrides by dotted path, fills defaults and validates.
//
// The runner (Run) wires loaders → checkpoint store → stages in order (ingest, extract, resolve,
// temporal, summarize, embed, community, and load when the sink is Memgraph or Neo4j) and returns
// the run report. It is resumable: running the same job again skips every unit whose inputs did
// not change. MakePlan estimates a job's calls, tokens and cost without calling the LLM.
package jobs
