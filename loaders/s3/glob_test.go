package s3

import "testing"

func TestParseName(t *testing.T) {
	tests := []struct {
		in, bucket, key string
		ok              bool
	}{
		{"s3://b/k", "b", "k", true},
		{"s3://b/dir/sub/*.parquet", "b", "dir/sub/*.parquet", true},
		{"s3://b", "b", "", true},
		{"s3://b/", "b", "", true},
		{"s3:///k", "", "", false},
		{"s3://b*/k", "", "", false},
		{"/local/path", "", "", false},
		{"S3://b/k", "", "", false},
	}
	for _, tt := range tests {
		b, k, err := parseName(tt.in)
		if (err == nil) != tt.ok || b != tt.bucket || k != tt.key {
			t.Errorf("parseName(%q) = %q, %q, %v; want %q, %q, ok=%v", tt.in, b, k, err, tt.bucket, tt.key, tt.ok)
		}
	}
}

func TestListPlan(t *testing.T) {
	tests := []struct{ pattern, prefix, delimiter string }{
		{"data/*.parquet", "data/", "/"},
		{"data/part-?.jsonl", "data/part-", "/"},
		{"data/*/x.jsonl", "data/", ""},
		{"*", "", "/"},
		{"a/b[0-9]/c", "a/b", ""},
		{`a/\*x`, "a/", "/"},
		{"plain/key", "plain/key", "/"},
		{"data/**", "data/", ""},
		{"data/x**.jsonl", "data/x", ""},
	}
	for _, tt := range tests {
		p, d := listPlan(tt.pattern)
		if p != tt.prefix || d != tt.delimiter {
			t.Errorf("listPlan(%q) = %q, %q; want %q, %q", tt.pattern, p, d, tt.prefix, tt.delimiter)
		}
	}
}
