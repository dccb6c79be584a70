package testenv

import (
	"strings"
	"testing"
)

// mapEnv returns a getenv over m.
func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		want     outcome
		msgParts []string
	}{
		{"all set", map[string]string{EnvNeo4jURI: "bolt://127.0.0.1:7687"}, use, nil},
		{"unset fails", map[string]string{}, fail,
			[]string{EnvNeo4jURI, "scripts/neo4j.sh start", EnvSkipIntegration + "=1"}},
		{"unset skipped when disabled", map[string]string{EnvSkipIntegration: "1"}, skip,
			[]string{EnvNeo4jURI, "skipped"}},
		{"only 1 disables", map[string]string{EnvSkipIntegration: "true"}, fail, []string{EnvNeo4jURI}},
		{"set wins over skip", map[string]string{EnvNeo4jURI: "bolt://x:1", EnvSkipIntegration: "1"}, use, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, got, msg := lookup(mapEnv(tt.env), `eval "$(scripts/neo4j.sh start)"`, EnvNeo4jURI)
			if got != tt.want {
				t.Fatalf("outcome = %v, want %v (msg %q)", got, tt.want, msg)
			}
			if got == use && vals[EnvNeo4jURI] != tt.env[EnvNeo4jURI] {
				t.Errorf("value = %q, want %q", vals[EnvNeo4jURI], tt.env[EnvNeo4jURI])
			}
			for _, p := range tt.msgParts {
				if !strings.Contains(msg, p) {
					t.Errorf("message %q lacks %q", msg, p)
				}
			}
		})
	}
}

// recordingTB stands in for a *testing.T and records Fatal and Skip instead of stopping.
type recordingTB struct {
	testing.TB
	fatal, skipped string
}

func (r *recordingTB) Helper()           {}
func (r *recordingTB) Fatal(args ...any) { r.fatal = args[0].(string) }
func (r *recordingTB) Skip(args ...any)  { r.skipped = args[0].(string) }

func TestS3From(t *testing.T) {
	full := map[string]string{
		EnvS3Endpoint: "http://127.0.0.1:7070", EnvS3AccessKey: "ak", EnvS3SecretKey: "sk",
	}
	with := func(extra map[string]string, drop string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			if k != drop {
				m[k] = v
			}
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name        string
		env         map[string]string
		want        S3Env
		fatal, skip string // substrings expected in the recorded message
	}{
		{"default region", full, S3Env{"http://127.0.0.1:7070", "ak", "sk", DefaultS3Region}, "", ""},
		{"explicit region", with(map[string]string{EnvS3Region: "eu-west-3"}, ""),
			S3Env{"http://127.0.0.1:7070", "ak", "sk", "eu-west-3"}, "", ""},
		{"missing secret fails", with(nil, EnvS3SecretKey), S3Env{}, EnvS3SecretKey, ""},
		{"missing endpoint fails naming script", with(nil, EnvS3Endpoint), S3Env{}, "scripts/versitygw.sh start", ""},
		{"missing endpoint skipped when disabled", with(map[string]string{EnvSkipIntegration: "1"}, EnvS3Endpoint),
			S3Env{}, "", EnvS3Endpoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingTB{}
			got := s3From(rec, mapEnv(tt.env))
			if got != tt.want {
				t.Errorf("S3Env = %+v, want %+v", got, tt.want)
			}
			check := func(kind, got, want string) {
				if (want == "") != (got == "") || !strings.Contains(got, want) {
					t.Errorf("%s message = %q, want one containing %q", kind, got, want)
				}
			}
			check("fatal", rec.fatal, tt.fatal)
			check("skip", rec.skipped, tt.skip)
		})
	}
}

// TestMemgraphFrom: unset skips with a line naming the variable and the workflow; set is used as
// it is, neither skipped nor failed, whatever BACKFILL_SKIP_INTEGRATION says.
func TestMemgraphFrom(t *testing.T) {
	r := &recordingTB{TB: t}
	if uri := memgraphFrom(r, mapEnv(nil)); uri != "" || r.fatal != "" ||
		!strings.Contains(r.skipped, EnvMemgraphURI+" unset") || !strings.Contains(r.skipped, MemgraphWorkflow) {
		t.Errorf("unset: uri %q, skipped %q, fatal %q", uri, r.skipped, r.fatal)
	}
	for _, env := range []map[string]string{
		{EnvMemgraphURI: "bolt://127.0.0.1:7688"},
		{EnvMemgraphURI: "bolt://127.0.0.1:7688", EnvSkipIntegration: "1"},
	} {
		r := &recordingTB{TB: t}
		if uri := memgraphFrom(r, mapEnv(env)); uri != "bolt://127.0.0.1:7688" || r.skipped != "" || r.fatal != "" {
			t.Errorf("%v: uri %q, skipped %q, fatal %q", env, uri, r.skipped, r.fatal)
		}
	}
}
