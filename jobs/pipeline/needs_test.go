package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs"
)

// TestKeyNeeds: which provider settings need an API key that the environment lacks.
func TestKeyNeeds(t *testing.T) {
	remote := []string{"llm.provider=openai", "llm.base_url=https://api.openai.com/v1", "llm.model=gpt-4o-mini"}
	local := []string{"llm.provider=openai", "llm.base_url=http://127.0.0.1:8089/v1", "llm.model=stub"}
	remoteEmbedder := []string{"embedder.provider=openai", "embedder.base_url=https://api.openai.com/v1", "embedder.model=text-embedding-3-small"}
	for _, c := range []struct {
		name string
		sets []string
		env  map[string]string
		want []string // the keys named, in order
	}{
		{"offline needs none", nil, nil, nil},
		{"a hosted endpoint without its key", remote, nil, []string{"llm.api_key_env"}},
		{"a hosted endpoint with its key", remote, map[string]string{"OPENAI_API_KEY": "sk-x"}, nil},
		{"an empty key is no key", remote, map[string]string{"OPENAI_API_KEY": ""}, []string{"llm.api_key_env"}},
		{"a loopback server needs none", local, nil, nil},
		{"localhost is loopback", []string{"llm.provider=openai", "llm.base_url=http://localhost:8080/v1", "llm.model=m"}, nil, nil},
		{"a server on another host", []string{"llm.provider=openai", "llm.base_url=http://gpu-box:8000/v1", "llm.model=m"}, nil, []string{"llm.api_key_env"}},
		{"a key the job names, on loopback", append(append([]string{}, local...), "llm.api_key_env=LOCAL_KEY"), nil, []string{"llm.api_key_env"}},
		{"the named key set", append(append([]string{}, local...), "llm.api_key_env=LOCAL_KEY"), map[string]string{"LOCAL_KEY": "k"}, nil},
		{"llm and embedder share the variable: one line", append(append([]string{}, remote...), remoteEmbedder...), nil, []string{"llm.api_key_env"}},
		{"the embedder alone", append(append([]string{}, local...), remoteEmbedder...), nil, []string{"embedder.api_key_env"}},
		{"the embedder with a variable of its own", append(append(append([]string{}, remote...), remoteEmbedder...), "embedder.api_key_env=EMBED_KEY"),
			map[string]string{"OPENAI_API_KEY": "sk-x"}, []string{"embedder.api_key_env"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			j, err := loadDemo(t, c.sets...)
			if err != nil {
				t.Fatal(err)
			}
			needs := j.KeyNeeds(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
			var got []string
			for _, n := range needs {
				got = append(got, n.Key)
				if !strings.Contains(n.What, "is not set") || !strings.Contains(n.What, "export ") {
					t.Errorf("%s: %q does not say what to do", n.Key, n.What)
				}
				for _, v := range c.env {
					if v != "" && strings.Contains(n.What, v) {
						t.Errorf("%s repeats a key: %q", n.Key, n.What)
					}
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("needs %v, want %v (%v)", got, c.want, needs)
			}
		})
	}
}

// TestSourceNeeds: a local source that gives nothing to read is named, with the variable its
// path came from and the comment above it; an existing file, and an s3:// path, are not.
func TestSourceNeeds(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "present.jsonl")
	if err := os.WriteFile(present, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job := `name: n
sources:
  # The data: get it from the archive, or set DATA.
  - path: ${DATA:-` + filepath.Join(dir, "absent.jsonl") + `}
  - path: ` + present + `
  - path: ` + filepath.Join(dir, "none-*.jsonl") + `
  - path: s3://bucket/key.jsonl
`
	noEnv := func(string) (string, bool) { return "", false }
	j, err := Parse([]byte(job), nil, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	needs := j.SourceNeeds(t.Context(), jobs.SourceOrigins([]byte(job), noEnv))
	if len(needs) != 2 || needs[0].Key != "sources[0].path" || needs[1].Key != "sources[2].path" {
		t.Fatalf("needs %v, want sources 0 and 2", needs)
	}
	for _, want := range []string{"absent.jsonl does not exist", "${DATA:-", "set DATA to the file's path",
		"the job file says: The data: get it from the archive, or set DATA."} {
		if !strings.Contains(needs[0].What, want) {
			t.Errorf("%q lacks %q", needs[0].What, want)
		}
	}
	if !strings.Contains(needs[1].What, "none-*.jsonl holds no input file") {
		t.Errorf("%q: want the pattern that matches nothing", needs[1].What)
	}
	// A --set that changes the path leaves the job file's origin of the path out.
	j, err = Parse([]byte(job), []string{"sources.0.path=" + filepath.Join(dir, "other.jsonl")}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if n := j.SourceNeeds(t.Context(), jobs.SourceOrigins([]byte(job), noEnv)); len(n) != 2 || strings.Contains(n[0].What, "DATA") ||
		!strings.Contains(n[0].What, "other.jsonl does not exist") {
		t.Errorf("after --set: %v", n)
	}
}
