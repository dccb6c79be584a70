package jobs

import (
	"errors"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/options"
)

// spec is a small job of the shapes the loader handles: the job's own keys, a section with a
// default, a maximum, an empty meaning, words, a switch and an optional number, a list of
// sections and a mapping of sections.
type spec struct {
	Job
	Part struct {
		Size  int
		Ratio *float64
		Note  string
		Kind  string
		Off   bool
		Tags  []string
		Limit map[string]int
	}
	Items  []struct{ Path, Format string }
	Prices map[string]struct{ In float64 }
}

func (s *spec) Declare(root *options.Section) {
	s.Job.Declare(root)
	root.Section("part", "a part", func(sec *options.Section) {
		p := &s.Part
		sec.Int(&p.Size, "size", "size", options.Default(4), options.Max(100))
		sec.OptFloat(&p.Ratio, "ratio", "ratio", options.Default(0.5), options.Max(1))
		sec.String(&p.Note, "note", "note", options.Empty("no note"))
		sec.String(&p.Kind, "kind", "kind", options.Default("a"), options.Words("a", "b"))
		sec.Switch(&p.Off, "llm", "switch", "on", "off", options.Default("on"))
		sec.Strings(&p.Tags, "tags", "tags")
		sec.IntMap(&p.Limit, "limit", "limits")
	})
	l := options.ListOf(root, &s.Items, "items", "items", func(sec *options.Section, it *struct{ Path, Format string }) {
		sec.String(&it.Path, "path", "path", options.Check(func() error {
			if it.Path == "" {
				return errors.New("required")
			}
			return nil
		}))
		sec.String(&it.Format, "format", "format", options.Default("jsonl"))
	})
	l.Check(func() error {
		if len(s.Items) == 0 {
			return errors.New("at least one item is required")
		}
		return nil
	})
	options.MapOf(root, &s.Prices, "prices", "prices", func(sec *options.Section, p *struct{ In float64 }) {
		sec.Float(&p.In, "in", "input")
	})
}

func parse(t *testing.T, yml string, sets []string, env map[string]string) (*spec, error) {
	t.Helper()
	return Parse[spec]([]byte(yml), sets, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
}

// TestDefaultsAndValues: declared defaults fill zero values (an unset pointer only), and values
// reach the fields they are bound to, through lists, mappings, merges and aliases.
func TestDefaultsAndValues(t *testing.T) {
	s, err := parse(t, "items: [{path: a}]\n", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "job" || s.Timezone != "UTC" || s.RecordTime != "ingest" || s.Part.Size != 4 || *s.Part.Ratio != 0.5 ||
		s.Part.Kind != "a" || s.Part.Off || s.Items[0].Format != "jsonl" {
		t.Errorf("defaults: %+v", s)
	}
	s, err = parse(t, `items: [{path: a, format: parquet}, {path: b}]
part: &p {size: 0, ratio: 0, llm: "off", limit: {extract: 3}, tags: [x]}
prices: {m1: {in: 1.5}}
`, []string{"items.1.format=csv", "prices.m2.in=2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Part.Size != 4 || *s.Part.Ratio != 0 || !s.Part.Off || s.Part.Limit["extract"] != 3 || s.Part.Tags[0] != "x" ||
		s.Items[0].Format != "parquet" || s.Items[1].Format != "csv" || s.Prices["m1"].In != 1.5 || s.Prices["m2"].In != 2 {
		t.Errorf("values: %+v", s)
	}
}

// TestMergeKeys: a mapping's own keys win over those it merges, earlier merges over later ones,
// and a key given twice in one mapping is an error naming both lines.
func TestMergeKeys(t *testing.T) {
	s, err := parse(t, `items:
  - &first {path: a, format: parquet}
  - <<: [*first, {path: z, format: other}]
    path: b
`, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Items[1].Path != "b" || s.Items[1].Format != "parquet" {
		t.Errorf("merged item %+v, want path b (own) and format parquet (first merge)", s.Items[1])
	}
	_, err = parse(t, "items: [{path: a}]\npart:\n  size: 1\n  size: 2\n", nil, nil)
	if err == nil || !strings.Contains(err.Error(), `line 4: mapping key "size" already defined at line 3`) {
		t.Errorf("a key given twice: %v", err)
	}
}

// TestErrorsNameKeys: unknown keys, values of the wrong type, numbers out of range, words and
// checks are errors naming the key as the job writes it; a --set at fault is a *SetError.
func TestErrorsNameKeys(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		sets []string
		want string
	}{
		{"items: [{path: a}]\npart: {sise: 3}\n", nil, "line 2: unknown job key part.sise (did you mean part.size?)"},
		{"items: [{path: a}]\n", []string{"part.zzz=1"}, "unknown job key part.zzz (the keys of part are size, ratio, note, kind, llm, tags, limit)"},
		{"items: [{path: a}]\nnope: 1\n", nil, "unknown job key nope (the top-level keys are name, timezone, record_time, part, items, prices)"},
		{"items: [{path: a}]\n", []string{"part.size=lots"}, `part.size: "lots" is not a whole number`},
		{"items: [{path: a}]\npart: {size: [1]}\n", nil, "line 2: part.size: want a single value"},
		{"items: {path: a}\n", nil, "line 1: items: want a list"},
		{"items: [{path: a}]\npart: {size: 101}\n", nil, "validating job: part.size: 101 is above the maximum 100"},
		{"items: [{path: a}]\npart: {ratio: .nan}\n", nil, "validating job: part.ratio: NaN is not a finite number"},
		{"items: [{path: a}]\npart: {limit: {x: -1}}\n", nil, "validating job: part.limit.x: -1 is negative"},
		{"items: [{path: a}]\nprices: {m: {in: -1}}\n", nil, "validating job: prices.m.in: -1 is negative"},
		{"items: [{path: a}]\npart: {kind: c}\n", nil, `validating job: part.kind: "c" is not a or b`},
		{"items: [{path: a}]\npart: {llm: maybe}\n", nil, `validating job: part.llm: "maybe" is not on or off`},
		{"items: [{path: a}, {format: x}]\n", nil, "validating job: items[1].path: required"},
		{"items: []\n", nil, "validating job: items: at least one item is required"},
		{"items: [{path: a}]\ntimezone: Mars/Base\n", nil, `validating job: timezone: unknown zone "Mars/Base"`},
		{"items: [{path: a}]\n", []string{"items.3.path=x"}, "applying --set items.3.path=x: items is a list of 1"},
		{"items: [{path: a}]\n", []string{"part.size="}, "applying --set part.size=: part.size: an empty value is an error"},
	} {
		_, err := parse(t, tc.yaml, tc.sets, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q with %q: %v, want %q", tc.yaml, tc.sets, err, tc.want)
			continue
		}
		if se := new(SetError); (tc.sets != nil) != errors.As(err, &se) {
			t.Errorf("%q with %q: %v: a SetError is a --set's fault and only that", tc.yaml, tc.sets, err)
		}
	}
	if _, err := parse(t, "items: [{path: a}]\n", []string{"part.note="}, nil); err != nil {
		t.Errorf("an empty value of a key that declares its meaning: %v", err)
	}
}

// TestExpandVariables: ${VAR} is expanded inside scalar values only, typed from its text; an
// unset one is an error naming its line, one set but empty an error naming the key unless the
// key declares what empty means.
func TestExpandVariables(t *testing.T) {
	env := map[string]string{"N": "7", "EMPTY": "", "NL": "a\npart: {size: 99}"}
	s, err := parse(t, "# ${UNSET}\nitems: [{path: \"${NL}\"}]\npart: {size: \"${N}\", note: '${EMPTY}'}\n", nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if s.Part.Size != 7 || s.Items[0].Path != "a\npart: {size: 99}" {
		t.Errorf("expanded: %+v", s)
	}
	if _, err := parse(t, "items: [{path: a}]\npart:\n  size: ${EMPTY}\n", nil, env); err == nil ||
		!strings.Contains(err.Error(), "line 3: part.size: an empty value is an error") || !strings.Contains(err.Error(), "EMPTY is set but empty") {
		t.Errorf("a number set empty: %v", err)
	}
	if _, err := parse(t, "items:\n  - path: ${MISSING}\n", nil, env); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("an unset variable: %v", err)
	}
}

// TestMissingJobFileNamedOnce: the error names the file once.
func TestMissingJobFileNamedOnce(t *testing.T) {
	path := t.TempDir() + "/nope.yaml"
	_, err := Load[spec](path, nil, func(string) (string, bool) { return "", false })
	if err == nil || strings.Count(err.Error(), path) != 1 || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load(missing) = %v, want one mention of %s", err, path)
	}
}
