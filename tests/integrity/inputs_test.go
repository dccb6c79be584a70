package integrity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestInputsNeverSkipped: a source that names or matches something that cannot be read stops
// the run before it starts (exit 2, runner.Preflight) naming it: a dangling symbolic link, an unreadable directory under a **
// glob, an unreadable file. A literal name with glob characters names that file; ** reads
// every depth.
func TestInputsNeverSkipped(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ep := func(n string) string { return line("g", "2024-03-01T09:00:00Z", "Alice", "Note "+n+".") }
	writeFile(t, filepath.Join(data, "a.jsonl"), ep("a"))
	writeFile(t, filepath.Join(data, "x", "b.jsonl"), ep("b"))
	writeFile(t, filepath.Join(data, "x", "y", "z", "c.jsonl"), ep("c"))
	episodes := func(t *testing.T, job string, n string) {
		t.Helper()
		res := run(t, []string{"run", job}, harness.Options{})
		want(t, "run", res, 0)
		if !strings.Contains(res.Stdout, "episodes           "+n+"\n") {
			t.Errorf("want %s episodes:\n%s", n, res.Stdout)
		}
	}
	jobOf := func(name, path string) string {
		return writeFile(t, filepath.Join(dir, name+".yaml"), offlineJob(name, filepath.Join(dir, name+".db"), "path: "+path+"\n    format: jsonl", ""))
	}
	t.Run("** is recursive", func(t *testing.T) { episodes(t, jobOf("deep", filepath.Join(data, "**", "*.jsonl")), "3") })

	lit := filepath.Join(dir, "lit")
	writeFile(t, filepath.Join(lit, "export[1].jsonl"), ep("the bracketed file"))
	writeFile(t, filepath.Join(lit, "export1.jsonl"), ep("one")+strings.Replace(ep("one again, later"), "2024-03-01", "2024-03-02", 1))
	t.Run("literal name first", func(t *testing.T) { episodes(t, jobOf("lit", filepath.Join(lit, "export[1].jsonl")), "1") })
	t.Run("the same as a pattern", func(t *testing.T) { episodes(t, jobOf("pat", filepath.Join(lit, "export[0-9].jsonl")), "2") })

	link := filepath.Join(data, "x", "gone.jsonl")
	if err := os.Symlink(filepath.Join(dir, "deleted.jsonl"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(data, "**", "*.jsonl"), filepath.Join(data, "x"), filepath.Join(data, "x", "*.jsonl"), link} {
		t.Run("dangling link via "+filepath.Base(p), func(t *testing.T) {
			want(t, "run", run(t, []string{"run", jobOf("link", p)}, harness.Options{}), 2, link)
		})
	}
	os.Remove(link)

	// Unreadable things, as a user who cannot read them.
	shut := filepath.Join(data, "x", "shut")
	writeFile(t, filepath.Join(shut, "d.jsonl"), ep("d"))
	secret := writeFile(t, filepath.Join(data, "secret.jsonl"), ep("s"))
	for _, p := range []string{shut, secret} {
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.Chmod(shut, 0o755); os.Chmod(secret, 0o644) })
	opts := unprivileged(t, dir)
	if err := os.Chmod(dir, 0o777); err != nil { // the unprivileged run writes its checkpoint here
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ path, names string }{
		"unreadable directory under **": {filepath.Join(data, "**", "*.jsonl"), shut},
		"unreadable file":               {filepath.Join(data, "*.jsonl"), secret},
	} {
		t.Run(name, func(t *testing.T) {
			want(t, "run", run(t, []string{"run", jobOf("shut", c.path)}, opts), 2, c.names, "permission denied")
		})
	}
}

// TestS3InputsNeverSkipped: on S3 too, ** spans "directories" and an existing key with glob
// characters is taken literally.
func TestS3InputsNeverSkipped(t *testing.T) {
	env := testenv.S3(t)
	ep := func(n string) []byte { return []byte(line("g", "2024-03-01T09:00:00Z", "Alice", "Note "+n+".")) }
	bucket := testenv.NewBucket(t, env, map[string][]byte{
		"in/a.jsonl": ep("a"), "in/x/b.jsonl": ep("b"), "in/x/y/c.jsonl": ep("c"),
		"lit/export[1].jsonl": ep("bracketed"), "lit/export1.jsonl": append(ep("one"), ep("two")...),
	})
	dir := t.TempDir()
	s3 := "s3:\n  endpoint: " + env.Endpoint + "\n  region: " + env.Region + "\n  path_style: true\n"
	awsEnv := []string{"AWS_ACCESS_KEY_ID=" + env.AccessKey, "AWS_SECRET_ACCESS_KEY=" + env.SecretKey, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "none"), "AWS_PROFILE="}
	for _, c := range []struct{ name, key, n string }{
		{"deep", "in/**/*.jsonl", "3"},
		{"lit", "lit/export[1].jsonl", "1"},
	} {
		job := writeFile(t, filepath.Join(dir, c.name+".yaml"), offlineJob(c.name, filepath.Join(dir, c.name+".db"),
			"path: s3://"+bucket+"/"+c.key+"\n    format: jsonl", s3))
		res := run(t, []string{"run", job}, harness.Options{Env: awsEnv})
		want(t, c.key, res, 0)
		if !strings.Contains(res.Stdout, "episodes           "+c.n+"\n") {
			t.Errorf("%s: want %s episodes:\n%s", c.key, c.n, res.Stdout)
		}
	}
}
