package options

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Key is one declared job key, bound to a field of the settings of the package that reads it.
// The job's value is decoded into value: the field itself, or, for a key the job writes in other
// words or units than the field holds (Switch: a word for a bool; Seconds: a number of seconds
// for a time.Duration), a value of the job's own that set converts into the field once the
// defaults are applied.
type Key struct {
	name, doc string
	value     reflect.Value // what the job's value is decoded into (addressable)
	set       func()        // converts value into the bound field; nil when value is the field
	switchOf  []string      // Switch: the words of false and true
	def       *reflect.Value
	defText   string
	max       float64
	hasMax    bool
	words     []string
	empty     string
	emptyOK   bool
	example   []string // the value, then the --set KEY=VALUE it needs
	checks    []func() error
}

// Opt adds to a key's declaration.
type Opt func(*Key)

// Default is the key's value when the job leaves it at its zero value (unset, or 0, "" or false;
// for a pointer field, unset only). v must be assignable to the type of the key's value (or, for
// a pointer, to what it points to): a word for a Switch, a number of seconds for Seconds.
func Default(v any) Opt {
	return func(k *Key) {
		rv := reflect.ValueOf(v)
		t := k.base()
		switch {
		case rv.Type().AssignableTo(t):
		case rv.CanConvert(t) && (rv.Kind() == t.Kind() || isNumber(rv.Kind()) && isNumber(t.Kind())):
			rv = rv.Convert(t)
		default:
			panic(fmt.Sprintf("options: the default %v (%T) of %s does not fit %s", v, v, k.name, t))
		}
		k.def = &rv
	}
}

// DefaultText documents a default the code that reads the key applies itself (one that depends
// on other keys, or that the key's zero value stands for): the job keeps the zero value.
func DefaultText(text string) Opt { return func(k *Key) { k.defText = text } }

// Max is the largest value a numeric key (or each number it holds) may take.
func Max(x float64) Opt { return func(k *Key) { k.max, k.hasMax = x, true } }

// Words are the values a text key may take (after its default); another value is an error
// listing them.
func Words(words ...string) Opt { return func(k *Key) { k.words = words } }

// Empty says what the key's empty value means: an empty value given by --set KEY= or by a ${VAR}
// set but empty is then the key's value, not an error.
func Empty(meaning string) Opt { return func(k *Key) { k.empty, k.emptyOK = meaning, true } }

// Example is a valid value of the key other than its default, as --set writes it, and the other
// --set KEY=VALUE overrides it needs to act (a key that acts only with another setting): tests
// that change every key of a section use it (a stage's keys must each reach the stage's
// fingerprint). A key of words, a switch and a true/false key have one without it (Key.Example).
func Example(v string, with ...string) Opt {
	return func(k *Key) { k.example = append([]string{v}, with...) }
}

// Check validates the key's value (after defaults): an error is reported naming the key.
func Check(f func() error) Opt { return func(k *Key) { k.checks = append(k.checks, f) } }

// Name is the key's name in its section.
func (k *Key) Name() string { return k.name }

// Doc is the key's doc line.
func (k *Key) Doc() string { return k.doc }

// Target is the pointer a value of the key is decoded into.
func (k *Key) Target() any { return k.value.Addr().Interface() }

// Type is the type a value of the key is decoded into (Target's element type).
func (k *Key) Type() reflect.Type { return k.value.Type() }

// EmptyMeaning is what an empty value of the key means, when it means something.
func (k *Key) EmptyMeaning() (string, bool) { return k.empty, k.emptyOK }

// Example is a valid value of the key other than its default, as --set writes it, with the --set
// overrides it needs: the declared one (options.Example), else another word than the default (a
// key of words or a switch) or true (a true/false key); "" when there is none.
func (k *Key) Example() (value string, with []string) {
	if len(k.example) > 0 {
		return k.example[0], k.example[1:]
	}
	def := ""
	if k.def != nil {
		def = fmt.Sprint(k.def.Interface())
	}
	for _, w := range k.Words() {
		if w != def {
			return w, nil
		}
	}
	if k.base().Kind() == reflect.Bool && def != "true" {
		return "true", nil
	}
	return "", nil
}

// Words are the values a text key may take (nil: any).
func (k *Key) Words() []string {
	if k.switchOf != nil {
		return k.switchOf
	}
	return k.words
}

// base is the type of the key's value without its pointer.
func (k *Key) base() reflect.Type {
	t := k.value.Type()
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// applyDefault sets the key's default when its value is zero, then converts the value into the
// bound field (set).
func (k *Key) applyDefault() {
	if k.def != nil && k.value.IsZero() {
		if k.value.Kind() == reflect.Pointer {
			p := reflect.New(k.value.Type().Elem())
			p.Elem().Set(*k.def)
			k.value.Set(p)
		} else {
			k.value.Set(*k.def)
		}
	}
	if k.set != nil {
		k.set()
	}
}

// validate checks the key's words and runs its checks.
func (k *Key) validate() error {
	if ws := k.Words(); ws != nil {
		if v := k.value.String(); !contains(ws, v) {
			return fmt.Errorf("%q is not %s", v, OneOf(ws))
		}
	}
	for _, c := range k.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// switchKey is a key the job writes as one of two words, off or on, bound to a bool.
func switchKey(p *bool, off, on string) *Key {
	word := new(string)
	return &Key{value: reflect.ValueOf(word).Elem(), set: func() { *p = *word == on }, switchOf: []string{off, on}}
}

// secondsKey is a key the job writes as a number of seconds (fractions allowed), bound to a
// time.Duration.
func secondsKey(p *time.Duration) *Key {
	secs := new(float64)
	return &Key{value: reflect.ValueOf(secs).Elem(), set: func() { *p = time.Duration(*secs * float64(time.Second)) }}
}

// OneOf lists words as a choice: "a", "a or b", "a, b or c".
func OneOf(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
