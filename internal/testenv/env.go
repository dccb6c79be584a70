package testenv

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Names of the environment variables this package reads.
const (
	EnvNeo4jURI        = "BACKFILL_NEO4J_URI"
	EnvFalkorDBURI     = "BACKFILL_FALKORDB_URI"
	EnvMemgraphURI     = "BACKFILL_MEMGRAPH_URI"
	EnvS3Endpoint      = "BACKFILL_S3_ENDPOINT"
	EnvS3AccessKey     = "BACKFILL_S3_ACCESS_KEY"
	EnvS3SecretKey     = "BACKFILL_S3_SECRET_KEY"
	EnvS3Region        = "BACKFILL_S3_REGION"
	EnvSkipIntegration = "BACKFILL_SKIP_INTEGRATION"
)

// DefaultS3Region is the region used when BACKFILL_S3_REGION is unset.
const DefaultS3Region = "us-east-1"

// outcome is what a lookup decided: use the values, skip the test, or fail it with msg.
type outcome int

const (
	use outcome = iota
	skip
	fail
)

// lookup reads the named variables through getenv. It returns use when all are set; otherwise
// skip or fail (depending on BACKFILL_SKIP_INTEGRATION) with a message naming the missing
// variables and how to start the server.
func lookup(getenv func(string) string, howto string, names ...string) (map[string]string, outcome, string) {
	vals := make(map[string]string, len(names))
	var missing []string
	for _, n := range names {
		v := getenv(n)
		if v == "" {
			missing = append(missing, n)
		}
		vals[n] = v
	}
	if len(missing) == 0 {
		return vals, use, ""
	}
	if getenv(EnvSkipIntegration) == "1" {
		return nil, skip, fmt.Sprintf("integration test skipped (%s=1); %s unset",
			EnvSkipIntegration, strings.Join(missing, ", "))
	}
	return nil, fail, fmt.Sprintf("%s unset: start the server with `%s` "+
		"(or set %s=1 to skip integration tests)", strings.Join(missing, ", "), howto, EnvSkipIntegration)
}

// require applies lookup to t: it skips or fails t when a variable is missing, and returns the
// values (nil after a skip or failure, for callers whose t does not stop the goroutine).
func require(t testing.TB, getenv func(string) string, howto string, names ...string) map[string]string {
	t.Helper()
	vals, out, msg := lookup(getenv, howto, names...)
	switch out {
	case skip:
		t.Skip(msg)
		return nil
	case fail:
		t.Fatal(msg)
		return nil
	}
	return vals
}

// Neo4j returns the Bolt URI of the test Neo4j server from BACKFILL_NEO4J_URI, failing (or, with
// BACKFILL_SKIP_INTEGRATION=1, skipping) t when it is unset.
func Neo4j(t testing.TB) string {
	t.Helper()
	vals := require(t, os.Getenv, `eval "$(scripts/neo4j.sh start)"`, EnvNeo4jURI)
	if vals == nil {
		return ""
	}
	return vals[EnvNeo4jURI]
}

// FalkorDB returns the redis:// URI of the test FalkorDB server from BACKFILL_FALKORDB_URI,
// failing (or, with BACKFILL_SKIP_INTEGRATION=1, skipping) t when it is unset.
func FalkorDB(t testing.TB) string {
	t.Helper()
	vals := require(t, os.Getenv, `eval "$(scripts/falkordb.sh start)"`, EnvFalkorDBURI)
	if vals == nil {
		return ""
	}
	return vals[EnvFalkorDBURI]
}

// MemgraphWorkflow is where the Memgraph tests run: Memgraph has no server a script can install
// on these machines (no package registry ships it), so a GitHub Actions workflow starts its
// official container and sets BACKFILL_MEMGRAPH_URI.
const MemgraphWorkflow = ".github/workflows/memgraph.yml"

// Memgraph returns the Bolt URI of a Memgraph server from BACKFILL_MEMGRAPH_URI. Unlike the
// other servers, an unset variable skips t, with a line saying where the test runs; a set one is
// used as it is, so a server that does not answer fails the test rather than skipping it.
func Memgraph(t testing.TB) string {
	t.Helper()
	return memgraphFrom(t, os.Getenv)
}

func memgraphFrom(t testing.TB, getenv func(string) string) string {
	t.Helper()
	uri := getenv(EnvMemgraphURI)
	if uri == "" {
		t.Skip(fmt.Sprintf("%s unset: Memgraph cannot run on this machine; %s runs this test against Memgraph's container",
			EnvMemgraphURI, MemgraphWorkflow))
	}
	return uri
}

// S3Env locates the test S3 gateway and its root credentials.
type S3Env struct {
	Endpoint  string // e.g. http://127.0.0.1:7070
	AccessKey string
	SecretKey string
	Region    string
}

// S3 returns the test S3 gateway from the BACKFILL_S3_* variables, failing (or, with
// BACKFILL_SKIP_INTEGRATION=1, skipping) t when one of them is unset. Region defaults to
// us-east-1.
func S3(t testing.TB) S3Env {
	t.Helper()
	return s3From(t, os.Getenv)
}

func s3From(t testing.TB, getenv func(string) string) S3Env {
	t.Helper()
	vals := require(t, getenv, `eval "$(scripts/versitygw.sh start)"`,
		EnvS3Endpoint, EnvS3AccessKey, EnvS3SecretKey)
	if vals == nil {
		return S3Env{}
	}
	region := getenv(EnvS3Region)
	if region == "" {
		region = DefaultS3Region
	}
	return S3Env{
		Endpoint:  vals[EnvS3Endpoint],
		AccessKey: vals[EnvS3AccessKey],
		SecretKey: vals[EnvS3SecretKey],
		Region:    region,
	}
}

// Names of the variables of the local model server (scripts/local_llm.sh).
const (
	EnvLocalLLMURL   = "BACKFILL_LOCAL_LLM_URL"
	EnvLocalLLMModel = "BACKFILL_LOCAL_LLM_MODEL"
)

// LocalLLM is the local model server: its base URL (ending in /v1) and the model it serves.
type LocalLLM struct {
	URL   string
	Model string
}

// LocalModel returns the local model server from BACKFILL_LOCAL_LLM_URL and
// BACKFILL_LOCAL_LLM_MODEL, failing (or, with BACKFILL_SKIP_INTEGRATION=1, skipping) t when one is
// unset.
func LocalModel(t testing.TB) LocalLLM {
	t.Helper()
	return localServer(t, "scripts/local_llm.sh", EnvLocalLLMURL, EnvLocalLLMModel)
}

// localServer reads the URL and model variables of a local server that script starts.
func localServer(t testing.TB, script, urlVar, modelVar string) LocalLLM {
	t.Helper()
	vals := require(t, os.Getenv, `eval "$(`+script+` start)"`, urlVar, modelVar)
	if vals == nil {
		return LocalLLM{}
	}
	return LocalLLM{URL: vals[urlVar], Model: vals[modelVar]}
}

// Names of the variables of the local embedding server (scripts/local_embed.sh).
const (
	EnvLocalEmbedURL   = "BACKFILL_LOCAL_EMBED_URL"
	EnvLocalEmbedModel = "BACKFILL_LOCAL_EMBED_MODEL"
)

// LocalEmbedder returns the local embedding server from BACKFILL_LOCAL_EMBED_URL and
// BACKFILL_LOCAL_EMBED_MODEL (its base URL, ending in /v1, and its model), failing (or, with
// BACKFILL_SKIP_INTEGRATION=1, skipping) t when one is unset.
func LocalEmbedder(t testing.TB) LocalLLM {
	t.Helper()
	return localServer(t, "scripts/local_embed.sh", EnvLocalEmbedURL, EnvLocalEmbedModel)
}

// Names of the variables of the OpenTelemetry Collector (scripts/otelcol.sh).
const (
	EnvOTelEndpoint     = "BACKFILL_OTELCOL_ENDPOINT"
	EnvOTelGRPCEndpoint = "BACKFILL_OTELCOL_GRPC_ENDPOINT"
	EnvOTelTraces       = "BACKFILL_OTELCOL_TRACES"
	EnvOTelMetrics      = "BACKFILL_OTELCOL_METRICS"
)

// OTelCollector is the test OpenTelemetry Collector: its OTLP endpoints and the files its file
// exporter writes (OTLP JSON, a line per batch received).
type OTelCollector struct {
	Endpoint     string // OTLP/HTTP, e.g. http://127.0.0.1:14318
	GRPCEndpoint string // OTLP/gRPC
	Traces       string // traces.jsonl
	Metrics      string // metrics.jsonl
}

// Collector returns the test collector from the BACKFILL_OTELCOL_* variables, failing (or, with
// BACKFILL_SKIP_INTEGRATION=1, skipping) t when one is unset.
func Collector(t testing.TB) OTelCollector {
	t.Helper()
	vals := require(t, os.Getenv, `eval "$(scripts/otelcol.sh start)"`, EnvOTelEndpoint, EnvOTelGRPCEndpoint, EnvOTelTraces, EnvOTelMetrics)
	if vals == nil {
		return OTelCollector{}
	}
	return OTelCollector{Endpoint: vals[EnvOTelEndpoint], GRPCEndpoint: vals[EnvOTelGRPCEndpoint], Traces: vals[EnvOTelTraces],
		Metrics: vals[EnvOTelMetrics]}
}
