package wire

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"text/template"
)

//go:embed prompts/*.tmpl
var builtinPrompts embed.FS

// promptFormat is hashed with every template, so a change to how Render assembles messages
// changes every prompt hash.
const promptFormat = "backfill-prompt-v1"

// Prompts holds the system and user template of every task.
type Prompts struct {
	tasks map[string]*promptPair
}

type promptPair struct {
	system, user *template.Template
	input        reflect.Type
	hash         string
}

// LoadPrompts loads the embedded templates. When dir is not empty, a file named
// "<task>.system.tmpl" or "<task>.user.tmpl" in dir replaces the embedded one of that name;
// any other *.tmpl file in dir is an error (a misspelt override would otherwise be ignored).
func LoadPrompts(dir string) (*Prompts, error) {
	overrides, err := readOverrides(dir)
	if err != nil {
		return nil, err
	}
	p := &Prompts{tasks: map[string]*promptPair{}}
	for name, types := range taskTypes() {
		texts := [2]string{}
		for i, part := range []string{"system", "user"} {
			file := name + "." + part + ".tmpl"
			text, ok := overrides[file]
			if !ok {
				raw, err := builtinPrompts.ReadFile("prompts/" + file)
				if err != nil {
					return nil, fmt.Errorf("reading embedded prompt %s: %w", file, err)
				}
				text = string(raw)
			}
			delete(overrides, file)
			texts[i] = text
		}
		pair, err := newPair(name, texts[0], texts[1])
		if err != nil {
			return nil, err
		}
		pair.input = types[0]
		p.tasks[name] = pair
	}
	for file := range overrides {
		return nil, fmt.Errorf("loading prompts from %s: %s names no task prompt (want <task>.system.tmpl or <task>.user.tmpl)", dir, file)
	}
	return p, nil
}

// readOverrides reads every *.tmpl file of dir; an empty dir reads nothing.
func readOverrides(dir string) (map[string]string, error) {
	out := map[string]string{}
	if dir == "" {
		return out, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading prompts dir: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tmpl") {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("reading prompt: %w", err)
		}
		out[e.Name()] = string(raw)
	}
	return out, nil
}

func newPair(task, system, user string) (*promptPair, error) {
	funcs := template.FuncMap{"join": strings.Join, "json": toJSON}
	st, err := template.New(task + ".system").Option("missingkey=error").Funcs(funcs).Parse(system)
	if err != nil {
		return nil, fmt.Errorf("parsing prompt %s.system.tmpl: %w", task, err)
	}
	ut, err := template.New(task + ".user").Option("missingkey=error").Funcs(funcs).Parse(user)
	if err != nil {
		return nil, fmt.Errorf("parsing prompt %s.user.tmpl: %w", task, err)
	}
	h := sha256.New()
	for _, s := range []string{promptFormat, task, system, user} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return &promptPair{system: st, user: ut, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

func toJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	return string(raw), err
}

// Version names the prompt set: the first 12 hex digits of a sha256 over every task's name and
// Hash, so that two runs with the same prompts show the same version.
func (p *Prompts) Version() string {
	names := make([]string, 0, len(p.tasks))
	for name := range p.tasks {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s:%s\n", name, p.tasks[name].hash)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Hash is the version hash of a task's prompt pair: sha256 (hex) of both template texts and
// the message format. It is empty for an unknown task. Stages put it in unit fingerprints.
func (p *Prompts) Hash(task string) string {
	if pair, ok := p.tasks[task]; ok {
		return pair.hash
	}
	return ""
}

// Render builds the messages of one call: the system message, then the user message, which
// always ends with InputFence + json.Marshal(input) + "\n```". input must be the task's input
// type (or a pointer to it).
func (p *Prompts) Render(task string, input any) ([]Message, error) {
	pair, ok := p.tasks[task]
	if !ok {
		return nil, fmt.Errorf("rendering prompt: unknown task %q", task)
	}
	if input == nil {
		return nil, errors.New("rendering prompt: nil input")
	}
	if t := reflect.TypeOf(input); t != pair.input && t != reflect.PointerTo(pair.input) {
		return nil, fmt.Errorf("rendering prompt %s: input is %s, want %s", task, t, pair.input)
	}
	var sys, usr bytes.Buffer
	if err := pair.system.Execute(&sys, input); err != nil {
		return nil, fmt.Errorf("rendering prompt %s.system: %w", task, err)
	}
	if err := pair.user.Execute(&usr, input); err != nil {
		return nil, fmt.Errorf("rendering prompt %s.user: %w", task, err)
	}
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("encoding input of %s: %w", task, err)
	}
	user := strings.TrimSpace(usr.String())
	if user != "" {
		user += "\n\n"
	}
	user += InputFence + string(raw) + "\n```"
	return []Message{
		{Role: RoleSystem, Content: strings.TrimSpace(sys.String())},
		{Role: RoleUser, Content: user},
	}, nil
}

// Files lists the template file names Prompts loads, sorted; a prompts_dir may override any.
func Files() []string {
	var out []string
	_ = fs.WalkDir(builtinPrompts, "prompts", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, pathpkg.Base(path))
		}
		return nil
	})
	return out
}
