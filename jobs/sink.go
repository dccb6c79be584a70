package jobs

// Default names of the variables holding the sink credentials.
const (
	DefaultSinkUsernameEnv = "BACKFILL_SINK_USERNAME"
	DefaultSinkPasswordEnv = "BACKFILL_SINK_PASSWORD"
)

// DefaultFalkorDBURI is sink.uri's default for the falkordb sink (Bolt sinks default to
// bolt://127.0.0.1:7687).
const DefaultFalkorDBURI = "redis://127.0.0.1:6379"
