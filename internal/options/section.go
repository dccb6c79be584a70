package options

import (
	"fmt"
	"reflect"
	"time"
)

// Section is a mapping of job keys: the top of a job, a section such as llm or
// stages.extract, or one element of a list of sections such as sources[]. Its entries (keys,
// sections, lists and maps of sections) are in declaration order: the order the key reference
// and the hints of unknown keys list them.
type Section struct {
	name, doc string
	entries   []Entry
	checks    []func() error
	defaults  []func()
}

// Entry is a key (*Key), a section (*Section), a list of sections (*List) or a mapping of
// sections (*Map).
type Entry interface {
	Name() string
	Doc() string
}

// New returns the top section of a job.
func New() *Section { return &Section{} }

// Name is the section's key in its parent ("" at the top).
func (s *Section) Name() string { return s.name }

// Doc is the section's doc line.
func (s *Section) Doc() string { return s.doc }

// Entries are the section's entries in declaration order.
func (s *Section) Entries() []Entry { return s.entries }

// Entry is the entry named name, or nil.
func (s *Section) Entry(name string) Entry {
	for _, e := range s.entries {
		if e.Name() == name {
			return e
		}
	}
	return nil
}

// Names are the names of the section's entries in declaration order.
func (s *Section) Names() []string {
	out := make([]string, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.Name()
	}
	return out
}

// Section declares a section of keys under s, or adds to the one already declared under that
// name (several packages may declare the keys of one section; the first doc line stays).
// declare declares its keys.
func (s *Section) Section(name, doc string, declare func(*Section)) *Section {
	sub, ok := s.Entry(name).(*Section)
	if !ok {
		s.mustBeNew(name)
		sub = &Section{name: name, doc: doc}
		s.entries = append(s.entries, sub)
	}
	declare(sub)
	return sub
}

// Check adds a validation of the section as a whole, run after its keys' own: a plain error is
// reported at the section, an error from Bad at the key it names.
func (s *Section) Check(f func() error) { s.checks = append(s.checks, f) }

// Defaults adds a default that depends on other keys, applied after the keys' own defaults.
func (s *Section) Defaults(f func()) { s.defaults = append(s.defaults, f) }

// String declares a text key.
func (s *Section) String(p *string, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// Int declares a whole-number key.
func (s *Section) Int(p *int, name, doc string, opts ...Opt) *Key { return s.add(p, name, doc, opts) }

// Int64 declares a whole-number key.
func (s *Section) Int64(p *int64, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// Float declares a number key.
func (s *Section) Float(p *float64, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// Bool declares a true/false key.
func (s *Section) Bool(p *bool, name, doc string, opts ...Opt) *Key { return s.add(p, name, doc, opts) }

// OptInt declares a whole-number key whose zero is a value of its own: its default applies only
// when the job leaves it unset.
func (s *Section) OptInt(p **int, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// OptFloat declares a number key whose zero is a value of its own (OptInt).
func (s *Section) OptFloat(p **float64, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// OptBool declares a true/false key whose false is a value of its own (OptInt).
func (s *Section) OptBool(p **bool, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// Strings declares a key whose value is a list of text.
func (s *Section) Strings(p *[]string, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// IntMap declares a key whose value is a mapping of names to whole numbers.
func (s *Section) IntMap(p *map[string]int, name, doc string, opts ...Opt) *Key {
	return s.add(p, name, doc, opts)
}

// Switch declares a key the job writes as one of two words, off or on, and the code reads as
// false or true. Its default, words and example are words.
func (s *Section) Switch(p *bool, name, doc, off, on string, opts ...Opt) *Key {
	k := switchKey(p, off, on)
	k.name, k.doc = name, doc
	return s.addKey(k, opts)
}

// Seconds declares a key the job writes as a number of seconds (fractions allowed) and the code
// reads as a time.Duration. Its default, maximum and example are in seconds.
func (s *Section) Seconds(p *time.Duration, name, doc string, opts ...Opt) *Key {
	k := secondsKey(p)
	k.name, k.doc = name, doc
	return s.addKey(k, opts)
}

// add declares a key bound to the field p points to.
func (s *Section) add(p any, name, doc string, opts []Opt) *Key {
	return s.addKey(&Key{name: name, doc: doc, value: reflect.ValueOf(p).Elem()}, opts)
}

func (s *Section) addKey(k *Key, opts []Opt) *Key {
	s.mustBeNew(k.name)
	for _, o := range opts {
		o(k)
	}
	s.entries = append(s.entries, k)
	return k
}

// mustBeNew panics when the section already has an entry of the name: a key is declared once.
func (s *Section) mustBeNew(name string) {
	if s.Entry(name) != nil {
		panic(fmt.Sprintf("options: %s is declared twice in section %q", name, s.name))
	}
}

// List is a list of sections, such as sources[]: one section per element.
type List struct {
	name, doc string
	make      func(n int) []*Section
	example   func() *Section
	elements  []*Section
	checks    []func() error
}

// Name is the list's key.
func (l *List) Name() string { return l.name }

// Doc is the list's doc line.
func (l *List) Doc() string { return l.doc }

// Make sets the bound list to n zero elements and returns the section of each, for a loader to
// decode them into.
func (l *List) Make(n int) []*Section {
	l.elements = l.make(n)
	return l.elements
}

// Element is the section of a new element, not bound to the list: the keys every element has.
func (l *List) Element() *Section { return l.example() }

// Check adds a validation of the list as a whole (an error is reported at the list).
func (l *List) Check(f func() error) { l.checks = append(l.checks, f) }

// ListOf declares a list of sections under s, bound to *p; declare declares the keys of one
// element.
func ListOf[T any](s *Section, p *[]T, name, doc string, declare func(*Section, *T)) *List {
	s.mustBeNew(name)
	l := &List{name: name, doc: doc}
	l.make = func(n int) []*Section {
		elems := make([]T, n)
		*p = elems
		out := make([]*Section, n)
		for i := range elems {
			out[i] = &Section{name: name}
			declare(out[i], &elems[i])
		}
		return out
	}
	l.example = func() *Section {
		sec := &Section{name: name}
		declare(sec, new(T))
		return sec
	}
	s.entries = append(s.entries, l)
	return l
}

// Map is a mapping of names to sections, such as llm.prices (a model name to its prices).
type Map struct {
	name, doc string
	make      func(keys []string) []*Section
	example   func() *Section
	commit    func()
	elements  []*Section
	keys      []string
}

// Name is the mapping's key.
func (m *Map) Name() string { return m.name }

// Doc is the mapping's doc line.
func (m *Map) Doc() string { return m.doc }

// Make returns a section for each of keys, for a loader to decode them into; the bound mapping
// holds them once their defaults are applied (ApplyDefaults).
func (m *Map) Make(keys []string) []*Section {
	m.keys = keys
	m.elements = m.make(keys)
	return m.elements
}

// Element is the section of a new element, not bound to the mapping.
func (m *Map) Element() *Section { return m.example() }

// MapOf declares a mapping of names to sections under s, bound to *p; declare declares the keys
// of one element.
func MapOf[T any](s *Section, p *map[string]T, name, doc string, declare func(*Section, *T)) *Map {
	s.mustBeNew(name)
	m := &Map{name: name, doc: doc}
	m.make = func(keys []string) []*Section {
		vals := make([]T, len(keys))
		out := make([]*Section, len(keys))
		for i := range vals {
			out[i] = &Section{name: keys[i]}
			declare(out[i], &vals[i])
		}
		m.commit = func() {
			*p = make(map[string]T, len(keys))
			for i, k := range keys {
				(*p)[k] = vals[i]
			}
		}
		return out
	}
	m.example = func() *Section {
		sec := &Section{name: name}
		declare(sec, new(T))
		return sec
	}
	s.entries = append(s.entries, m)
	return m
}
