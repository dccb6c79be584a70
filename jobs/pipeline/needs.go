package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/loaders"
)

// KeyNeeds lists the API keys the job's providers need that env lacks (unset or empty).
// Provider openai needs its key when its base_url is not on this machine (a hosted API such as
// OpenAI's or Azure's, or a server on another host), and wherever the job names api_key_env
// itself; a server on loopback (127.0.0.0/8, ::1, localhost: `backfill llm-stub`, a local
// llama.cpp) is asked without a key unless the job names the variable. The offline provider
// needs none.
func (j *Job) KeyNeeds(env jobs.LookupEnv) []jobs.Need {
	var out []jobs.Need
	told := map[string]bool{} // the embedder reads the llm's variable by default: one line says it
	for _, p := range []struct {
		section string
		e       Endpoint
	}{{"llm", j.LLM.Endpoint}, {"embedder", j.Embedder.Endpoint}} {
		if p.e.Provider != ProviderOpenAI || !p.e.keyEnvNamed && loopback(p.e.BaseURL) {
			continue
		}
		if v, _ := env(p.e.APIKeyEnv); v != "" || told[p.e.APIKeyEnv] {
			continue
		}
		told[p.e.APIKeyEnv] = true
		why := fmt.Sprintf("%s.base_url %s is not on this machine", p.section, p.e.BaseURL)
		if p.e.keyEnvNamed {
			why = "the job names it in " + p.section + ".api_key_env"
		}
		out = append(out, jobs.Need{Key: p.section + ".api_key_env",
			What: fmt.Sprintf("%s is not set, and provider openai needs its key (%s): export %s=<your API key>", p.e.APIKeyEnv, why, p.e.APIKeyEnv)})
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
// fails on each). With the job file's origins (jobs.SourceOrigins), a path that came from
// ${VAR} says which variable to set, and the job file's comment above the source is quoted.
// Sources in object storage (s3://) are read by the run, whose errors say what to do.
func (j *Job) SourceNeeds(ctx context.Context, origins map[int]jobs.Origin) []jobs.Need {
	var out []jobs.Need
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
		if o, ok := origins[i]; ok && o.Expanded == s.Path { // not a path --set gave
			if o.Written != s.Path {
				what += " (the job's path is " + o.Written
				if v := o.Var(); v != "" {
					what += ": set " + v + " to the file's path"
				}
				what += ")"
			}
			if o.Comment != "" {
				what += "; the job file says: " + o.Comment
			}
		}
		out = append(out, jobs.Need{Key: fmt.Sprintf("sources[%d].path", i), What: what})
	}
	return out
}
