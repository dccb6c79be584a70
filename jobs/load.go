package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/internal/options"
	"gopkg.in/yaml.v3"
)

// LookupEnv reads an environment variable; os.LookupEnv in production, a map in tests.
type LookupEnv func(string) (string, bool)

// SetError is a --set override that cannot apply: not KEY=VALUE, a path that does not reach a
// job key, a value of the wrong type, or a value the job's validation rejects when the job file
// alone is valid. The CLI reports it as a usage error.
type SetError struct {
	Set string // the override as given ("" when the sets together are at fault)
	Err error
}

func (e *SetError) Error() string {
	if e.Set == "" {
		return fmt.Sprintf("applying --set: %v", e.Err)
	}
	return fmt.Sprintf("applying --set %s: %v", e.Set, e.Err)
}

func (e *SetError) Unwrap() error { return e.Err }

// Declarer is what a job is loaded into: a value that declares its keys, bound to its own
// fields, on the top section of a job (options.Section). jobs/pipeline's Job is the one that
// declares every part's keys.
type Declarer interface {
	Declare(root *options.Section)
}

// Spec constrains P to a pointer to the job type T that declares T's keys (Declarer).
type Spec[T any] interface {
	*T
	Declarer
}

// Load reads a job file into a new T: it is parsed as YAML, ${VAR} and ${VAR:-default} are
// expanded from env inside scalar values (never in keys or comments), unknown keys are errors
// with their line, each --set KEY=VALUE override is applied by dotted path (a number indexes a
// list), then defaults are filled in and the job is validated, all by the keys T declares.
func Load[T any, P Spec[T]](path string, sets []string, env LookupEnv) (*T, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading job %s: %w", path, withoutPath(err))
	}
	j, err := Parse[T, P](raw, sets, env)
	var se *SetError
	if errors.As(err, &se) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("loading job %s: %w", path, err)
	}
	return j, nil
}

// withoutPath is err without the path of an *fs.PathError, which the caller names itself.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse is Load on the file's bytes.
func Parse[T any, P Spec[T]](raw []byte, sets []string, env LookupEnv) (*T, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		if bytes.Contains(raw, []byte("${")) {
			return nil, fmt.Errorf("parsing: %w (a ${VAR} inside {…} or […] must be quoted: \"${VAR}\")", err)
		}
		return nil, fmt.Errorf("parsing: %w", err)
	}
	keys := declared[T, P]()
	if err := expandNode(&doc, env, "", keys); err != nil {
		return nil, err
	}
	j, err := decodeJob[T, P](&doc)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return j.finish()
	}
	for _, s := range sets {
		if err := applySet(&doc, s, keys); err != nil {
			return nil, &SetError{Set: s, Err: err}
		}
		if _, err := decodeJob[T, P](&doc); err != nil {
			return nil, &SetError{Set: s, Err: err}
		}
	}
	withSets, _ := decodeJob[T, P](&doc)
	out, err := withSets.finish()
	if err != nil {
		if _, ferr := j.finish(); ferr == nil { // the file alone is valid: the overrides are at fault
			return nil, &SetError{Err: err}
		}
		return nil, err
	}
	return out, nil
}

// declared is the top section of a new T's keys.
func declared[T any, P Spec[T]]() *options.Section {
	root := options.New()
	P(new(T)).Declare(root)
	return root
}

// decoded is a job decoded into a new T with the section of its keys.
type decoded[T any] struct {
	job  *T
	keys *options.Section
}

// decodeJob decodes a job document into a new T: an unknown key or a value of the wrong type is
// an error naming its line and dotted path.
func decodeJob[T any, P Spec[T]](doc *yaml.Node) (decoded[T], error) {
	j := new(T)
	root := options.New()
	P(j).Declare(root)
	if err := decode(doc, root); err != nil {
		return decoded[T]{}, err
	}
	return decoded[T]{j, root}, nil
}

// finish fills in the defaults and validates the job.
func (d decoded[T]) finish() (*T, error) {
	d.keys.ApplyDefaults()
	if err := d.keys.Validate(); err != nil {
		return nil, fmt.Errorf("validating job: %w", err)
	}
	return d.job, nil
}

// applySet sets the scalar at a dotted path in a YAML document, creating mappings on the way;
// a number indexes a list (the list's length appends an element).
func applySet(doc *yaml.Node, set string, keys *options.Section) error {
	key, val, ok := strings.Cut(set, "=")
	if !ok || key == "" {
		return errors.New("want KEY=VALUE")
	}
	if strings.TrimSpace(val) == "" {
		if err := checkEmpty(keys, key, "give a value, or leave out this --set to keep the job file's value"); err != nil {
			return err
		}
	}
	if doc.Kind == 0 {
		*doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	n := doc.Content[0]
	parts := strings.Split(key, ".")
	for i, p := range parts {
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for k := 0; k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == p {
					next = n.Content[k+1]
				}
			}
			if next == nil {
				next = &yaml.Node{Kind: yaml.MappingNode}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: p}, next)
			}
		case yaml.SequenceNode:
			idx, err := strconv.Atoi(p)
			if err != nil || idx < 0 || idx > len(n.Content) || strconv.Itoa(idx) != p { // "01" or "+1" is no index as written
				return fmt.Errorf("%s is a list of %d: %q is not an index from 0 to %d (written without a sign or leading zeros)",
					strings.Join(parts[:i], "."), len(n.Content), p, len(n.Content))
			}
			if idx == len(n.Content) {
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.MappingNode})
			}
			next = n.Content[idx]
		default:
			return fmt.Errorf("%s is a value, not a mapping or list", strings.Join(parts[:i], "."))
		}
		if i == len(parts)-1 {
			*next = yaml.Node{Kind: yaml.ScalarNode, Value: val}
		}
		n = next
	}
	return nil
}
