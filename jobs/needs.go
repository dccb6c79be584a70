package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/tkgraph/backfill/loaders"
	"gopkg.in/yaml.v3"
)

// Need is something a run of the job needs from outside the job file that is missing: an API
// key, an input file, a reachable graph database. Key is the job key it belongs to.
type Need struct {
	Key  string
	What string
}

func (n Need) String() string { return n.Key + ": " + n.What }

// KeyNeeds lists the API keys the job's providers need that env lacks (unset or empty).
// Provider openai needs its key when its base_url is not on this machine (a hosted API such as
// OpenAI's or Azure's, or a server on another host), and wherever the job names api_key_env
// itself; a server on loopback (127.0.0.0/8, ::1, localhost: `backfill llm-stub`, a local
// llama.cpp) is asked without a key unless the job names the variable. The offline provider
// needs none.
func (j *Job) KeyNeeds(env LookupEnv) []Need {
	var out []Need
	told := map[string]bool{} // the embedder reads the llm's variable by default: one line says it
	for _, p := range []struct {
		section, provider, baseURL, keyEnv string
		named                              bool
	}{
		{"llm", j.LLM.Provider, j.LLM.BaseURL, j.LLM.APIKeyEnv, j.LLM.keyEnvNamed},
		{"embedder", j.Embedder.Provider, j.Embedder.BaseURL, j.Embedder.APIKeyEnv, j.Embedder.keyEnvNamed},
	} {
		if p.provider != "openai" || !p.named && loopback(p.baseURL) {
			continue
		}
		if v, _ := env(p.keyEnv); v != "" || told[p.keyEnv] {
			continue
		}
		told[p.keyEnv] = true
		why := fmt.Sprintf("%s.base_url %s is not on this machine", p.section, p.baseURL)
		if p.named {
			why = "the job names it in " + p.section + ".api_key_env"
		}
		out = append(out, Need{Key: p.section + ".api_key_env",
			What: fmt.Sprintf("%s is not set, and provider openai needs its key (%s): export %s=<your API key>", p.keyEnv, why, p.keyEnv)})
	}
	return out
}

// loopback reports whether a base URL's host is this machine.
func loopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// SourceNeeds lists the job's local sources that give nothing to read: a path that does not
// exist, a pattern that matches no file, or a file named or matched that cannot be opened (a run
// fails on each). The message
// names where the path came from when the job took it from ${VAR} (set VAR to point elsewhere),
// and quotes the job file's comment right above the source, where a job says where its data
// comes from. Sources in object storage (s3://) are read by the run, whose errors say what to do.
func (j *Job) SourceNeeds(ctx context.Context) []Need {
	var out []Need
	for i, s := range j.Sources {
		if strings.HasPrefix(s.Path, "s3://") {
			continue
		}
		names, err := loaders.LocalFS{}.Glob(ctx, s.Path)
		for _, name := range names {
			if err != nil {
				break
			}
			var f loaders.File
			if f, err = (loaders.LocalFS{}).Open(ctx, name); err == nil {
				f.Close()
			}
		}
		if err == nil && len(names) > 0 {
			continue
		}
		what := s.Path + " holds no input file"
		if _, lerr := os.Lstat(s.Path); errors.Is(lerr, fs.ErrNotExist) && !loaders.HasGlobMeta(s.Path) {
			what = s.Path + " does not exist"
		} else if err != nil {
			what = err.Error() // it names the file at fault
		}
		if s.origin.written != "" && s.origin.written != s.Path {
			what += fmt.Sprintf(" (the job's path is %s", s.origin.written)
			if vars := varRef.FindAllStringSubmatch(s.origin.written, -1); len(vars) > 0 {
				what += fmt.Sprintf(": set %s to the file's path", vars[0][1])
			}
			what += ")"
		}
		if s.origin.comment != "" {
			what += "; the job file says: " + s.origin.comment
		}
		out = append(out, Need{Key: fmt.Sprintf("sources[%d].path", i), What: what})
	}
	return out
}

// pathOrigin is where a source's path came from in the job file: the path as written (before
// ${VAR} expansion) and the comment right above the source, one line.
type pathOrigin struct {
	written, comment string
}

// sourceOrigins reads, from a job document before expansion, each source's path as written and
// the comment above it, by index.
func sourceOrigins(doc *yaml.Node) map[int]pathOrigin {
	out := map[int]pathOrigin{}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return out
	}
	top := doc.Content[0]
	for k := 0; k+1 < len(top.Content); k += 2 {
		if top.Content[k].Value != "sources" || top.Content[k+1].Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range top.Content[k+1].Content {
			if item.Kind != yaml.MappingNode {
				continue
			}
			o := pathOrigin{comment: item.HeadComment}
			for f := 0; f+1 < len(item.Content); f += 2 {
				if item.Content[f].Value == "path" && item.Content[f+1].Kind == yaml.ScalarNode {
					o.written = item.Content[f+1].Value
					o.comment = strings.TrimSpace(o.comment + "\n" + item.Content[f].HeadComment)
				}
			}
			o.comment = commentText(o.comment)
			out[i] = o
		}
	}
	return out
}

// commentText joins the lines of a YAML comment into one line without the "#" marks.
func commentText(c string) string {
	var words []string
	for _, l := range strings.Split(c, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
			words = append(words, l)
		}
	}
	return strings.Join(words, " ")
}

// noteOrigins keeps, in each source of j, where its path came from (origins, read before
// expansion) when the path is still the one the file gave (expanded: after expansion, before any
// --set).
func (j *Job) noteOrigins(origins map[int]pathOrigin, expanded map[int]string) {
	for i := range j.Sources {
		if o, ok := origins[i]; ok && j.Sources[i].Path == expanded[i] {
			j.Sources[i].origin = o
		}
	}
}
