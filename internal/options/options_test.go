package options

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type part struct {
	Size  int
	Ratio *float64
	Kind  string
	Off   bool
	Note  string
	Items []struct{ Path string }
	Costs map[string]struct{ In float64 }
}

func declare(p *part) *Section {
	root := New()
	root.Section("part", "a part", func(s *Section) {
		s.Int(&p.Size, "size", "the size", Default(4), Max(10))
		s.OptFloat(&p.Ratio, "ratio", "the ratio", Default(0.5), Max(1))
		s.String(&p.Kind, "kind", "the kind", Default("a"), Words("a", "b"))
		s.Switch(&p.Off, "llm", "on or off", "on", "off", Default("on"))
		s.String(&p.Note, "note", "a note", Empty("none"), DefaultText("the code's"))
		s.Check(func() error {
			if p.Size == 7 {
				return Bad("size", "%d is unlucky", p.Size)
			}
			return nil
		})
	})
	ListOf(root, &p.Items, "items", "the items", func(s *Section, it *struct{ Path string }) {
		s.String(&it.Path, "path", "a path", Check(func() error {
			if it.Path == "" {
				return errors.New("required")
			}
			return nil
		}))
	})
	MapOf(root, &p.Costs, "costs", "by name", func(s *Section, c *struct{ In float64 }) { s.Float(&c.In, "in", "input") })
	return root
}

// TestDefaults: a default fills a zero value; a pointer key's only when unset; a switch reads
// its word as a boolean.
func TestDefaults(t *testing.T) {
	var p part
	root := declare(&p)
	root.ApplyDefaults()
	if p.Size != 4 || *p.Ratio != 0.5 || p.Kind != "a" || p.Off || p.Note != "" {
		t.Errorf("defaults: %+v", p)
	}
	zero := 0.0
	p = part{Ratio: &zero, Kind: "b"}
	root = declare(&p)
	*root.Lookup("part.llm").Target().(*string) = "off"
	root.ApplyDefaults()
	if p.Size != 4 || *p.Ratio != 0 || p.Kind != "b" || !p.Off {
		t.Errorf("values: %+v", p)
	}
}

// TestValidate: numbers first (finite, not negative, within the maximum), then words and checks,
// each error at the key's path.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		set  func(*part, *Section)
		want string
	}{
		{func(p *part, _ *Section) { p.Size = 11 }, "part.size: 11 is above the maximum 10"},
		{func(p *part, _ *Section) { p.Size = -1 }, "part.size: -1 is negative"},
		{func(p *part, _ *Section) { p.Size = 7 }, "part.size: 7 is unlucky"},
		{func(p *part, _ *Section) { p.Kind = "c" }, `part.kind: "c" is not a or b`},
		{func(_ *part, r *Section) { *r.Lookup("part.llm").Target().(*string) = "maybe" }, `part.llm: "maybe" is not on or off`},
		{func(p *part, r *Section) {
			r.Entry("items").(*List).Make(2)
			p.Items[0].Path = "x"
		}, "items[1].path: required"},
		{func(p *part, r *Section) {
			els := r.Entry("costs").(*Map).Make([]string{"m"})
			_ = els
		}, ""},
	} {
		var p part
		root := declare(&p)
		tc.set(&p, root)
		root.ApplyDefaults()
		err := root.Validate()
		if (err == nil) != (tc.want == "") || err != nil && err.Error() != tc.want {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// TestLookupAndKeys: --set paths find their keys (list indexes as numbers, any mapping name),
// and Keys lists every key with "[]" and "*".
func TestLookupAndKeys(t *testing.T) {
	root := declare(new(part))
	for path, want := range map[string]string{"part.size": "size", "items.3.path": "path", "costs.gpt.in": "in", "part": "", "nope": ""} {
		k := root.Lookup(path)
		if got := ""; k != nil {
			got = k.Name()
			if got != want {
				t.Errorf("Lookup(%s) = %s, want %s", path, got, want)
			}
		} else if want != "" {
			t.Errorf("Lookup(%s) = nil", path)
		}
	}
	var paths []string
	for _, k := range root.Keys() {
		paths = append(paths, k.Path)
	}
	if got := strings.Join(paths, " "); got != "part.size part.ratio part.kind part.llm part.note items[].path costs.*.in" {
		t.Errorf("Keys: %s", got)
	}
	if m, ok := root.Lookup("part.note").EmptyMeaning(); !ok || m != "none" {
		t.Errorf("empty meaning %q %v", m, ok)
	}
}

// TestReference: the rows say what each value is; the renderings escape what Markdown would
// misread, make links to guides relative to the file, and turn them into titles for a terminal.
func TestReference(t *testing.T) {
	rows := declare(new(part)).Rows()
	want := map[string]string{
		"part.size":    "whole number; at most 10; default 4",
		"part.ratio":   "number; at most 1; default 0.5",
		"part.kind":    "`a` or `b`; default `a`",
		"part.llm":     "`on` or `off`; default `on`",
		"part.note":    "text; default the code's; empty: none",
		"items[]":      "list",
		"costs.<name>": "mapping",
	}
	for _, r := range rows {
		if w, ok := want[r.Key]; ok && r.Value != w {
			t.Errorf("%s: %q, want %q", r.Key, r.Value, w)
		}
	}
	md := Markdown([]Row{{Key: "k", Value: "a|b", Doc: "see [X](docs/x.md#y), [Z](docs/z.md), <tag> and `<code>`"}}, "docs/reference/keys.md")
	if !strings.Contains(md, `a\|b`) || !strings.Contains(md, "[X](../x.md#y)") || !strings.Contains(md, "[Z](../z.md)") ||
		!strings.Contains(md, "&lt;tag>") || !strings.Contains(md, "`<code>`") {
		t.Errorf("markdown: %s", md)
	}
	if txt := Text([]Row{{Key: "k", Value: "v", Doc: "see [X](docs/x.md#y)"}}, 80); txt != "k (v)\n    see \"X\" in docs/x.md\n" {
		t.Errorf("text: %q", txt)
	}
}

// TestDeclaredOnce: a key declared twice in a section is a programming error.
func TestDeclaredOnce(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a second declaration of a key did not panic")
		}
	}()
	var n int
	s := New()
	s.Int(&n, "n", "n")
	s.Int(&n, "n", "n again")
}

// TestExample: a declared example, else another word than the default, else true for a
// true/false key; none for a number without one.
func TestExample(t *testing.T) {
	root := declare(new(part))
	for path, want := range map[string]string{"part.kind": "b", "part.llm": "off", "part.size": ""} {
		if got, _ := root.Lookup(path).Example(); got != want {
			t.Errorf("%s: example %q, want %q", path, got, want)
		}
	}
	var b bool
	var n int
	s := New()
	if got, _ := s.Bool(&b, "b", "b").Example(); got != "true" {
		t.Errorf("a true/false key's example: %q", got)
	}
	if got, with := s.Int(&n, "n", "n", Example("3", "m=1")).Example(); got != "3" || len(with) != 1 || with[0] != "m=1" {
		t.Errorf("a declared example: %q %q", got, with)
	}
}

// TestSeconds: a key written in seconds reads as a time.Duration; its default and maximum are
// in seconds, and fractions are kept.
func TestSeconds(t *testing.T) {
	var d time.Duration
	s := New()
	k := s.Seconds(&d, "gap_seconds", "a gap", Default(3600), Max(86400))
	s.ApplyDefaults()
	if d != time.Hour {
		t.Errorf("default: %v", d)
	}
	*k.Target().(*float64) = 1.5
	s.ApplyDefaults()
	if d != 1500*time.Millisecond || s.Validate() != nil {
		t.Errorf("1.5 s: %v, %v", d, s.Validate())
	}
	*k.Target().(*float64) = 90000
	if err := s.Validate(); err == nil || err.Error() != "gap_seconds: 90000 is above the maximum 86400" {
		t.Errorf("above the maximum: %v", err)
	}
	if r := s.Rows()[0]; r.Value != "number; at most 86,400; default 3600" {
		t.Errorf("reference: %q", r.Value)
	}
}
