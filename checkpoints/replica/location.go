package replica

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// LeaseSuffix is appended to a snapshot's key to name its lease object.
const LeaseSuffix = ".lease"

// Location is a checkpoint store kept in object storage: the snapshot's bucket and key.
type Location struct{ Bucket, Key string }

func (l Location) String() string { return "s3://" + l.Bucket + "/" + l.Key }

// Lease is the URL of the location's lease object.
func (l Location) Lease() string { return l.String() + LeaseSuffix }

// scheme matches a URL scheme at the start of a name (RFC 3986: a letter, then letters, digits,
// '+', '-', '.'), followed by "://".
var scheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// typo matches a name that starts like a URL without its "//": "s3:/bucket/key", "s3:bucket/key",
// "gs:/bucket" (the scheme, and the slash after the colon if any).
var typo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):(/?)`)

// Parse reads a checkpoint name. A name with a URL scheme is a location: "s3://BUCKET/KEY" (the
// scheme in any case) is one kept in object storage (remote is true); any other scheme
// ("gs://", "http://", "file://", …) is an error, never a local path, and so is a name that
// looks like one without its "//" ("s3:/bucket/key", "s3:bucket/key", "gs:/bucket/key"). Any
// other name is a local path, returned with remote false.
func Parse(name string) (loc Location, remote bool, err error) {
	m := scheme.FindStringSubmatch(name)
	if m == nil {
		if t := typo.FindStringSubmatch(name); t != nil && (strings.EqualFold(t[1], "s3") || t[2] == "/") {
			fixed := t[1] + "://" + strings.TrimLeft(name[len(t[1])+1:], "/")
			return Location{}, false, fmt.Errorf("checkpoint %q looks like a URL without its \"//\": did you mean %s? "+
				"(for a local file whose name starts with %s:, write ./%s)", name, fixed, t[1], name)
		}
		return Location{}, false, nil
	}
	if !strings.EqualFold(m[1], "s3") {
		return Location{}, false, fmt.Errorf("checkpoint %q: %s:// is not a place a checkpoint can be kept: a checkpoint is a local "+
			"path or s3://BUCKET/KEY (an S3 or S3-compatible bucket; s3.endpoint names another store than AWS); for a local file "+
			"whose name starts with %s:, write ./%s", name, m[1], m[1], name)
	}
	rest := name[len(m[0]):]
	bucket, key, _ := strings.Cut(rest, "/")
	switch {
	case bucket == "":
		return Location{}, false, fmt.Errorf("checkpoint %q: no bucket: want s3://BUCKET/KEY", name)
	case key == "" || strings.HasSuffix(key, "/"):
		return Location{}, false, fmt.Errorf("checkpoint %q: no object key after the bucket: want s3://BUCKET/KEY, e.g. s3://%s/backfill/job.db", name, bucket)
	case strings.HasSuffix(key, LeaseSuffix):
		return Location{}, false, fmt.Errorf("checkpoint %q: a key ending in %s is the lease object of the store at the key without it: choose another key",
			name, LeaseSuffix)
	case len(key) > 1000:
		return Location{}, false, fmt.Errorf("checkpoint %q: the key is %d bytes long; S3 keys hold at most 1024 with the lease suffix", name, len(key))
	case strings.IndexFunc(rest, unicode.IsControl) >= 0:
		return Location{}, false, fmt.Errorf("checkpoint %q: a control character in the bucket or key", name)
	}
	return Location{Bucket: bucket, Key: key}, true, nil
}
