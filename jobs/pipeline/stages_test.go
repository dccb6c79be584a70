package pipeline

import (
	"testing"

	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
)

// TestLoadFingerprintPinned: the load unit fingerprint of a group, from the job's sink keys and
// embedder dimensions through loadOptions, is pinned. It changed once, when every stage's
// options went into its fingerprints by one recipe (stages.Key, stages.KeyRecipe "stage-key/1"):
// each group then loads once more; and again with loaderVersion load-v3 (the ownership record,
// which each group's load must write once, and message episodes as "speaker: text"), and
// load-v4 (Episodic record_key and seq, which eval and diff of a loaded graph need). A change
// here reloads every group of every existing checkpoint: bump the loader's version (or the
// recipe) deliberately instead.
func TestLoadFingerprintPinned(t *testing.T) {
	for _, c := range []struct {
		kind, uri, db string
		dims          int
		upstream      string
		want          string
	}{
		{"neo4j", "bolt://db:7687", "graph", 1024, "c0ffee", "ed78ec3e64955b04397b6faccfe6b618"},
		{"", "", "", 0, "", "2201fdfc3e58279fb85c42de99891d5a"},
	} {
		j := &Job{}
		j.Sink.Kind, j.Sink.URI, j.Sink.Database, j.Embedder.Dimensions = c.kind, c.uri, c.db, c.dims
		if got := loadOptions(j, nil, nil).Fingerprint(c.upstream); got != c.want {
			t.Errorf("%+v: load fingerprint %s, want %s", c, got, c.want)
		}
	}
}

// TestLoadOptionsLeaveSinkDefaults: the job's sink keys reach the loader as the job has them, an
// unset one as 0, which the loader reads as its own default: a Neo4j load that creates the vector
// indexes after its writes (graphiti, the default, and background) has its own bytes bound,
// online and Memgraph keep 2 MiB, and a job's own bound wins.
func TestLoadOptionsLeaveSinkDefaults(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want int
	}{
		{[]string{"sink.kind=neo4j"}, 8 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=background"}, 8 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=background", "sink.batch_bytes=1048576"}, 1 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=online"}, 2 << 20},
		{[]string{"sink.kind=memgraph", "sink.indexes=graphiti"}, 2 << 20},
	} {
		j, err := Parse([]byte("sources: [{path: x.jsonl}]\n"), tc.sets, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%v: %v", tc.sets, err)
		}
		o := loadOptions(j, nil, nil).Sink
		if o.BatchBytes != j.Sink.BatchBytes || string(o.Indexes) != j.Sink.Indexes || o.BatchSize != 0 || o.Sessions != 0 {
			t.Errorf("%v: loader options %+v, job %+v", tc.sets, o, j.Sink)
		}
		got := o.BatchBytes
		if got == 0 {
			got = graphdb.DefaultBatchBytesFor(o.Dialect, o.Indexes)
		}
		if got != tc.want || o.Dialect != cypher.Dialect(j.Sink.Kind) {
			t.Errorf("%v: batch bytes %d, want %d", tc.sets, got, tc.want)
		}
	}
}
