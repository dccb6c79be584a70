package graph

// SharesEndpoint reports whether two facts have an entity in common, in either role: the only
// facts that may close each other (the time rules, docs/concepts.md).
func SharesEndpoint(a, b *Fact) bool {
	return a.SourceUUID == b.SourceUUID || a.SourceUUID == b.TargetUUID || a.TargetUUID == b.SourceUUID || a.TargetUUID == b.TargetUUID
}
