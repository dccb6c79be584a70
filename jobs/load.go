package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// LookupEnv reads an environment variable; os.LookupEnv in production, a map in tests.
type LookupEnv func(string) (string, bool)

// Load reads a job file: ${VAR} and ${VAR:-default} are expanded from env, unknown keys are
// errors with their line, each --set KEY=VALUE override is applied by dotted path, then defaults
// are filled in and the job is validated.
func Load(path string, sets []string, env LookupEnv) (*Job, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading job %s: %w", path, err)
	}
	j, err := Parse(raw, sets, env)
	if err != nil {
		return nil, fmt.Errorf("loading job %s: %w", path, err)
	}
	return j, nil
}

// Parse is Load on the file's bytes.
func Parse(raw []byte, sets []string, env LookupEnv) (*Job, error) {
	text, err := Expand(string(raw), env)
	if err != nil {
		return nil, err
	}
	var j Job
	if err := decodeStrict([]byte(text), &j); err != nil {
		return nil, err
	}
	if len(sets) > 0 {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			return nil, fmt.Errorf("parsing: %w", err)
		}
		for _, s := range sets {
			if err := applySet(&doc, s); err != nil {
				return nil, err
			}
		}
		out, err := yaml.Marshal(&doc)
		if err != nil {
			return nil, fmt.Errorf("applying --set: %w", err)
		}
		j = Job{}
		if err := decodeStrict(out, &j); err != nil {
			return nil, fmt.Errorf("applying --set: %w", err)
		}
	}
	j.defaults()
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return &j, nil
}

func decodeStrict(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("parsing: %w", err)
	}
	return nil
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// Expand replaces ${VAR} and ${VAR:-default}; an unset ${VAR} without default is an error.
func Expand(s string, env LookupEnv) (string, error) {
	var missing []string
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := varRef.FindStringSubmatch(m)
		if v, ok := env(sub[1]); ok && (v != "" || sub[2] == "") {
			return v
		}
		if sub[2] != "" {
			return sub[3]
		}
		missing = append(missing, sub[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("expanding: environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// applySet sets the scalar at a dotted path (creating mappings on the way) in a YAML document.
func applySet(doc *yaml.Node, set string) error {
	key, val, ok := strings.Cut(set, "=")
	if !ok || key == "" {
		return fmt.Errorf("applying --set %q: want KEY=VALUE", set)
	}
	if doc.Kind == 0 {
		*doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	n := doc.Content[0]
	parts := strings.Split(key, ".")
	for i, p := range parts {
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("applying --set %s: %s is not a mapping", key, strings.Join(parts[:i], "."))
		}
		var next *yaml.Node
		for k := 0; k+1 < len(n.Content); k += 2 {
			if n.Content[k].Value == p {
				next = n.Content[k+1]
			}
		}
		if next == nil {
			next = &yaml.Node{Kind: yaml.MappingNode}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p}, next)
		}
		if i == len(parts)-1 {
			*next = yaml.Node{Kind: yaml.ScalarNode, Value: val}
		}
		n = next
	}
	return nil
}
