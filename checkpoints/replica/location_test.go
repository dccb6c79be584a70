package replica

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		loc    Location
		remote bool
		err    string
	}{
		{name: ".backfill/demo.db"},
		{name: "/var/lib/backfill/shard-0.db"},
		{name: "s3:demo.db", err: "did you mean s3://demo.db"}, // no "//": a typo, not a local name
		{name: "s3:/bucket/k.db", err: "did you mean s3://bucket/k.db"},
		{name: "S3:/bucket/k.db", err: "write ./S3:/bucket/k.db"},
		{name: "gs:/bucket/k.db", err: "did you mean gs://bucket/k.db"},
		{name: "./s3:demo.db"},
		{name: "c:/tmp/demo.db"}, // a drive letter, not a scheme
		{name: "notes:v2.db"},    // a local name with a colon (no slash after it)
		{name: "./s3://bucket/demo.db"},
		{name: "a b/c:d.db"},
		{name: "s3://bucket/demo.db", loc: Location{"bucket", "demo.db"}, remote: true},
		{name: "S3://bucket/jobs/a/b.db", loc: Location{"bucket", "jobs/a/b.db"}, remote: true},
		{name: "s3://bucket/k ey#?%.db", loc: Location{"bucket", "k ey#?%.db"}, remote: true},
		{name: "gs://bucket/demo.db", err: "gs:// is not a place a checkpoint can be kept"},
		{name: "http://host/demo.db", err: "http:// is not"},
		{name: "https://host/demo.db", err: "https:// is not"},
		{name: "file:///tmp/demo.db", err: "file:// is not"},
		{name: "az://container/demo.db", err: "write ./az://container/demo.db"},
		{name: "s3://", err: "no bucket"},
		{name: "s3:///demo.db", err: "no bucket"},
		{name: "s3://bucket", err: "no object key"},
		{name: "s3://bucket/", err: "no object key"},
		{name: "s3://bucket/dir/", err: "no object key"},
		{name: "s3://bucket/demo.db.lease", err: "lease object"},
		{name: "s3://bucket/" + strings.Repeat("k", 1001), err: "bytes long"},
		{name: "s3://bucket/a\nb", err: "control character"},
	} {
		loc, remote, err := Parse(tc.name)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "checkpoint") {
				t.Errorf("Parse(%q) = %v, want an error saying %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("Parse(%q): %v", tc.name, err)
		case remote != tc.remote || loc != tc.loc:
			t.Errorf("Parse(%q) = %+v %v, want %+v %v", tc.name, loc, remote, tc.loc, tc.remote)
		}
	}
	if l := (Location{"b", "k.db"}); l.String() != "s3://b/k.db" || l.Lease() != "s3://b/k.db.lease" {
		t.Errorf("Location strings: %s %s", l, l.Lease())
	}
}
