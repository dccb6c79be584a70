package options

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// ApplyDefaults applies the defaults of every key of the section (and of the elements a loader
// made), then the section's Defaults, depth first in declaration order.
func (s *Section) ApplyDefaults() {
	for _, e := range s.entries {
		switch e := e.(type) {
		case *Key:
			e.applyDefault()
		case *Section:
			e.ApplyDefaults()
		case *List:
			for _, el := range e.elements {
				el.ApplyDefaults()
			}
		case *Map:
			for _, el := range e.elements {
				el.ApplyDefaults()
			}
			if e.commit != nil {
				e.commit()
			}
		}
	}
	for _, f := range s.defaults {
		f()
	}
}

// Invalid is a value the validation refused: Path names the key as the job writes it
// ("sources[0].path", "llm.prices.gpt-4o.input_per_mtok"; "" for the job as a whole).
type Invalid struct {
	Path string
	Err  error
}

func (e *Invalid) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *Invalid) Unwrap() error { return e.Err }

// keyed is the error of a section check at the key it names.
type keyed struct {
	key string
	err error
}

func (e *keyed) Error() string { return e.key + ": " + e.err.Error() }
func (e *keyed) Unwrap() error { return e.err }

// Bad is the error a section check returns for the key at path key below the section
// ("json.text_fields[1]"; "" for the section itself).
func Bad(key, format string, args ...any) error {
	return &keyed{key: key, err: fmt.Errorf(format, args...)}
}

// Validate checks the section once its defaults are applied: first every number of every key,
// finite, not negative and within its maximum, then, in declaration order, each key's words and
// checks, and each section's checks after its keys'. The first failure is an *Invalid.
func (s *Section) Validate() error {
	if err := s.walkNumbers(""); err != nil {
		return err
	}
	return s.validate("")
}

func (s *Section) walkNumbers(path string) error {
	for _, e := range s.entries {
		var err error
		switch e := e.(type) {
		case *Key:
			err = walkNumbers(e.value, join(path, e.name), e)
		case *Section:
			err = e.walkNumbers(join(path, e.name))
		case *List, *Map:
			err = eachElement(e, join(path, e.Name()), (*Section).walkNumbers)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// eachElement calls f with each element of a list or mapping of sections (e, at path) and the
// element's path ("sources[0]", "llm.prices.gpt-4o"); the first error stops.
func eachElement(e Entry, path string, f func(*Section, string) error) error {
	switch e := e.(type) {
	case *List:
		for i, el := range e.elements {
			if err := f(el, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case *Map:
		for i, el := range e.elements {
			if err := f(el, join(path, e.keys[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkNumbers checks every number v holds, as the value of key k at path.
func walkNumbers(v reflect.Value, path string, k *Key) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return walkNumbers(v.Elem(), path, k)
	case reflect.Slice:
		for i := range v.Len() {
			if err := walkNumbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), k); err != nil {
				return err
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
		for _, mk := range keys {
			if err := walkNumbers(v.MapIndex(mk), join(path, mk.String()), k); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return checkNumber(float64(v.Int()), path, k)
	case reflect.Float32, reflect.Float64:
		return checkNumber(v.Float(), path, k)
	}
	return nil
}

func checkNumber(x float64, path string, k *Key) error {
	var err error
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		err = fmt.Errorf("%g is not a finite number", x)
	case x < 0:
		err = fmt.Errorf("%g is negative", x)
	case k.hasMax && x > k.max:
		err = fmt.Errorf("%g is above the maximum %g", x, k.max)
	}
	if err != nil {
		return &Invalid{Path: path, Err: err}
	}
	return nil
}

// validate runs the words and checks of the section's keys and entries, then its own checks.
func (s *Section) validate(path string) error {
	for _, e := range s.entries {
		var err error
		switch e := e.(type) {
		case *Key:
			if err = e.validate(); err != nil {
				err = at(join(path, e.name), err)
			}
		case *Section:
			err = e.validate(join(path, e.name))
		case *List:
			lp := join(path, e.name)
			err = eachElement(e, lp, (*Section).validate)
			for _, c := range e.checks {
				if err == nil {
					if err = c(); err != nil {
						err = at(lp, err)
					}
				}
			}
		case *Map:
			err = eachElement(e, join(path, e.name), (*Section).validate)
		}
		if err != nil {
			return err
		}
	}
	for _, c := range s.checks {
		if err := c(); err != nil {
			return at(path, err)
		}
	}
	return nil
}

// at is err reported at path: an error from Bad at the key it names below path; an *Invalid as
// it is.
func at(path string, err error) error {
	var inv *Invalid
	if errors.As(err, &inv) {
		return err
	}
	var k *keyed
	if errors.As(err, &k) {
		p := path
		if k.key != "" {
			p = joinKey(path, k.key)
		}
		return &Invalid{Path: p, Err: k.err}
	}
	return &Invalid{Path: path, Err: err}
}

// joinKey joins a relative key to path ("[0].x" joins without a dot).
func joinKey(path, key string) string {
	if strings.HasPrefix(key, "[") {
		return path + key
	}
	return join(path, key)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Lookup finds the key a dotted path names, as --set writes it ("sources.0.mapping.group",
// "llm.max_tokens.extract_graph": a number is a list index, any name a mapping's key; the
// path may go on into the value of a key that holds a list or a mapping). It returns nil when
// the path names no key (a section, or nothing).
func (s *Section) Lookup(path string) *Key {
	sec := s
	parts := strings.Split(path, ".")
	for i := 0; i < len(parts); i++ {
		switch e := sec.Entry(parts[i]).(type) {
		case *Key:
			return e
		case *Section:
			sec = e
		case *List:
			if i+1 < len(parts) {
				if _, err := strconv.Atoi(parts[i+1]); err != nil {
					return nil
				}
				i++
			}
			sec = e.Element()
		case *Map:
			i++ // any name
			sec = e.Element()
		default:
			return nil
		}
	}
	return nil
}

// KeyPath is a declared key with its dotted path: "[]" marks an element of a list of
// sections, "*" any name of a mapping of sections ("sources[].mapping.group",
// "llm.prices.*.input_per_mtok").
type KeyPath struct {
	Path string
	Key  *Key
}

// Keys lists every key of the section, depth first in declaration order.
func (s *Section) Keys() []KeyPath {
	var out []KeyPath
	s.keys("", &out)
	return out
}

func (s *Section) keys(path string, out *[]KeyPath) {
	for _, e := range s.entries {
		switch e := e.(type) {
		case *Key:
			*out = append(*out, KeyPath{Path: join(path, e.name), Key: e})
		case *Section:
			e.keys(join(path, e.name), out)
		case *List:
			e.Element().keys(join(path, e.name)+"[]", out)
		case *Map:
			e.Element().keys(join(join(path, e.name), "*"), out)
		}
	}
}
