package pipeline

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/sinks/graphdb"
)

func TestSinkValidation(t *testing.T) {
	tests := []struct {
		sets []string
		want string
	}{
		{[]string{"sink.kind=neo4j"}, ""},
		{[]string{"sink.kind=memgraph", "sink.analytical=true", "sink.batch_size=2000"}, ""},
		{[]string{"sink.kind=neo4j", "sink.analytical=true"}, "sink.analytical"},
		{[]string{"sink.kind=neo4j", "sink.uri=http://x:7474"}, "sink.uri"},
		{[]string{"sink.kind=neo4j", "sink.uri=bolt://neo4j:secret@x:7687"}, "credentials"},
		{[]string{"sink.kind=memgraph", "sink.batch_size=-1"}, "sink.batch_size"},
		{[]string{"sink.kind=oracle"}, "sink.kind"},
		{[]string{"s3.endpoint=127.0.0.1:7070"}, "s3.endpoint"},
		{[]string{"sink.kind=neo4j", "sink.max_attempts=1", "sink.retry_seconds=0.05"}, ""},
		{[]string{"sink.kind=neo4j", "sink.max_attempts=-2"}, "sink.max_attempts"},
		{[]string{"sink.kind=neo4j", "sink.retry_seconds=-1"}, "sink.retry_seconds"},
		{[]string{"sink.kind=neo4j", "sink.retry_seconds=600"}, "sink.retry_seconds"},
		{[]string{"sink.kind=neo4j", "sink.batch_bytes=65536", "sink.sessions=4"}, ""},
		{[]string{"sink.kind=neo4j", "sink.batch_bytes=1073741824"}, "sink.batch_bytes"},
		{[]string{"sink.kind=neo4j", "sink.sessions=-1"}, "sink.sessions"},
		{[]string{"sink.kind=memgraph", "sink.sessions=17"}, "sink.sessions"},
		{[]string{"sink.kind=neo4j", "sink.indexes=background"}, ""},
		{[]string{"sink.kind=neo4j", "sink.indexes=online"}, ""},
		{[]string{"sink.kind=neo4j", "sink.indexes=graphiti"}, ""},
		{[]string{"sink.kind=memgraph", "sink.indexes=graphiti"}, ""},
		{[]string{"sink.indexes=graphiti"}, ""},
		{[]string{"sink.kind=memgraph", "sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.kind=neo4j", "sink.indexes=later"}, "sink.indexes"},
		{[]string{"sink.kind=neo4j", "sink.foreign=delete", "sink.lease_seconds=30", "sink.lease_wait_seconds=0"}, ""},
		{[]string{"sink.kind=neo4j", "sink.foreign=keep"}, ""},
		{[]string{"sink.kind=neo4j", "sink.foreign=replace"}, "sink.foreign"},
		{[]string{"sink.kind=neo4j", "sink.lease_seconds=1"}, "sink.lease_seconds"},
		{[]string{"sink.kind=neo4j", "sink.lease_wait_seconds=-1"}, "sink.lease_wait_seconds"},
		{[]string{"sink.kind=falkordb"}, ""},
		{[]string{"sink.kind=falkordb", "sink.uri=rediss://db.example:6380"}, ""},
		{[]string{"sink.kind=falkordb", "sink.uri=bolt://x:7687"}, "sink.uri"},
		{[]string{"sink.kind=falkordb", "sink.uri=redis://u:p@x:6379"}, "credentials"},
		{[]string{"sink.kind=falkordb", "sink.database=g"}, "sink.database"},
		{[]string{"sink.kind=falkordb", "sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.kind=falkordb", "sink.analytical=true"}, "sink.analytical"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.sets, ","), func(t *testing.T) {
			_, err := Parse([]byte("sources: [{path: x.jsonl}]\n"), tc.sets, func(string) (string, bool) { return "", false })
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	// The job fills the sink's URI; the batch sizes, sessions, retries and indexes stay unset and
	// mean the sink's own defaults (sinks/memgraph applies them once, jobs/pipeline's
	// TestLoadOptionsLeaveSinkDefaults).
	j, err := Parse([]byte("sources: [{path: x.jsonl}]\nsink: {kind: memgraph}\n"), nil, func(string) (string, bool) { return "", false })
	if err != nil || j.Sink.URI != "bolt://127.0.0.1:7687" || j.Sink.BatchSize != 0 || j.Sink.BatchBytes != 0 ||
		j.Sink.Sessions != 0 || j.Sink.MaxAttempts != 0 || j.Sink.RetrySecs != 0 || j.Sink.Indexes != "" {
		t.Errorf("defaults: %+v, %v", j.Sink, err)
	}
	if j, err := Parse([]byte("sources: [{path: x.jsonl}]\nsink: {kind: falkordb}\n"), nil, func(string) (string, bool) { return "", false }); err != nil || j.Sink.URI != graphdb.DefaultFalkorDBURI {
		t.Errorf("falkordb defaults: %+v, %v", j.Sink, err)
	}
}
