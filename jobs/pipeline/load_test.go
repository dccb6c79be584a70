package pipeline

import (
	"errors"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs"
)

func envOf(m map[string]string) jobs.LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestExpandInValues: ${VAR} is expanded inside scalar values after parsing, so what a
// variable holds cannot change the document, and comments are never expanded.
func TestExpandInValues(t *testing.T) {
	env := envOf(map[string]string{"DIR": "data #1", "NL": "x.jsonl\nllm: {provider: nope}", "N": "7", "EMPTY": ""})
	j, err := Parse([]byte(`# ${UNSET} in a comment is text
name: "${N}"
sources:
  - path: ${DIR}/in.jsonl # ${ALSO_UNSET}
  - path: ${NL}
  - path: ${EMPTY:-fallback}.jsonl
llm: {concurrency: "${N}"}
embedder:
  dimensions: ${N}0
`), nil, env)
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != "7" || j.LLM.Concurrency != 7 || j.LLM.Provider != "offline" || j.Embedder.Dimensions != 70 {
		t.Errorf("name %q, concurrency %d, provider %q, dimensions %d", j.Name, j.LLM.Concurrency, j.LLM.Provider, j.Embedder.Dimensions)
	}
	want := []string{"data #1/in.jsonl", "x.jsonl\nllm: {provider: nope}", "fallback.jsonl"}
	for i, w := range want {
		if j.Sources[i].Path != w {
			t.Errorf("sources[%d].path = %q, want %q", i, j.Sources[i].Path, w)
		}
	}
	for _, doc := range []string{"llm: {model: '${EMPTY}'}\n", "llm:\n  model: ${EMPTY}\n", "llm:\n  model: \"${EMPTY} \"\n"} {
		_, err = Parse([]byte("sources: [{path: x.jsonl}]\n"+doc), nil, env)
		if err == nil || !strings.Contains(err.Error(), "llm.model") || !strings.Contains(err.Error(), "EMPTY") {
			t.Errorf("%q with EMPTY set but empty: %v, want an error naming llm.model and EMPTY", doc, err)
		}
	}
	j, err = Parse([]byte("sources: [{path: x.jsonl, description: '${EMPTY}'}]\nsink:\n  database: ${EMPTY}\n"), nil, env)
	if err != nil || j.Sources[0].Description != "" {
		t.Errorf("keys whose empty value means none, set empty by ${EMPTY}: %v", err)
	}
	_, err = Parse([]byte("sources:\n  - path: x.jsonl\n  - path: ${MISSING}/y.jsonl\n"), nil, env)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "MISSING") {
		t.Errorf("unset variable: %v, want an error naming line 3 and the variable", err)
	}
	_, err = Parse([]byte("sources: [{path: x.jsonl}]\nllm:\n  concurency: 3\n"), nil, env)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "concurency") {
		t.Errorf("unknown key: %v, want an error naming line 3 and the key", err)
	}
}

// TestSetReachesListElements: --set indexes lists; a bad --set is a *jobs.SetError.
func TestSetReachesListElements(t *testing.T) {
	src := []byte("sources:\n  - path: a.jsonl\n  - path: b.jsonl\n")
	j, err := Parse(src, []string{"sources.1.path=c.jsonl", "sources.2.path=d.jsonl", "sources.0.format=jsonl"}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Sources) != 3 || j.Sources[0].Format != "jsonl" || j.Sources[1].Path != "c.jsonl" || j.Sources[2].Path != "d.jsonl" {
		t.Errorf("sources = %+v", j.Sources)
	}
	for _, set := range []string{"sources.5.path=x", "sources.x.path=x", "nokey", "llm.concurency=3", "llm.concurrency=lots",
		"name.first=x", "llm.temperature=5"} {
		_, err := Parse(src, []string{set}, envOf(nil))
		var se *jobs.SetError
		if !errors.As(err, &se) {
			t.Errorf("--set %s: %v, want a SetError", set, err)
		}
	}
	if _, err := Parse([]byte("sources: []\n"), []string{"llm.concurrency=3"}, envOf(nil)); err == nil || errors.As(err, new(*jobs.SetError)) {
		t.Errorf("an invalid job file with a good --set: %v, want a plain validation error", err)
	}
}

// TestNumbersAndOntology: every numeric key is finite and not negative, some have maxima, and
// ontology names are unique identifiers.
func TestNumbersAndOntology(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"llm: {temperature: .nan}", "llm.temperature"},
		{"llm: {temperature: 2.5}", "llm.temperature"},
		{"llm: {temperature: 2}", ""},
		{"llm: {max_attempts: -1}", "llm.max_attempts: -1 is negative"},
		{"llm: {timeout_seconds: -5}", "llm.timeout_seconds"},
		{"embedder: {batch_size: -1}", "embedder.batch_size"},
		{"stages: {extract: {context: -2}}", "stages.extract.context"},
		{"stages: {extract: {window: 65}}", "stages.extract.window: 65 is above the maximum 64"},
		{"stages: {extract: {window: 4, mode: two_call}}", "stages.extract.window: 4 needs mode combined"},
		{"stages: {extract: {window: 4}}", ""},
		{"stages: {extract: {window_gap_seconds: -1}}", "stages.extract.window_gap_seconds"},
		{"stages: {community: {min_size: -1}}", "stages.community.min_size"},
		{"stages: {resolve: {grey_threshold: .nan}}", "stages.resolve.grey_threshold"},
		{"limits: {max_cost_usd: -1}", "limits.max_cost_usd"},
		{"llm: {prices: {m: {input_per_mtok: .inf}}}", "llm.prices.m.input_per_mtok"},
		{"ontology: {entity_types: [{name: Person}, {name: person}]}", "entity_types[1].name"},
		{"ontology: {entity_types: [{name: Big Company}]}", "not an identifier"},
		{"ontology: {entity_types: [{name: Episodic}]}", "graph model"},
		{"ontology: {entity_types: [{name: P, attributes: [uuid]}]}", "attributes[0]"},
		{"ontology: {entity_types: [{name: P, attributes: [a, a]}]}", "listed twice"},
		{"ontology: {edge_types: [{name: WORKS_AT}, {name: works_at}]}", "edge_types[1].name"},
		{"ontology: {edge_types: [{name: WORKS-AT}]}", "not an identifier"},
		{"ontology: {edge_types: [{name: WORKS_AT, sources: [Persn]}]}", "sources[0]"},
		{"ontology: {edge_types: [{name: WORKS_AT, cardinality: single}]}", "edge_types[0].cardinality"},
		{"ontology: {excluded_types: [Plan]}", "excluded_types[0]"},
		{"ontology: {entity_types: [{name: Plan}], excluded_types: [plan, Entity]}", ""},
	}
	for _, tc := range tests {
		_, err := Parse([]byte("sources: [{path: x.jsonl}]\n"+tc.yaml+"\n"), nil, envOf(nil))
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestKeyErrorsSpeakJobKeys: an unknown key, in the file or in a --set, is named by its dotted
// path with the nearest known key; a value of the wrong type names the key and what it must be,
// never a Go type.
func TestKeyErrorsSpeakJobKeys(t *testing.T) {
	src := "sources:\n  - path: a.jsonl\n    mapping: {group: g}\nllm:\n  provider: offline\n"
	for _, tc := range []struct {
		yaml string
		sets []string
		want string
	}{
		{src, []string{"llm.concurrenccy=8"}, "applying --set llm.concurrenccy=8: unknown job key llm.concurrenccy (did you mean llm.concurrency?)"},
		{src, []string{"sources.0.mapping.groupp=x"}, "unknown job key sources.0.mapping.groupp (did you mean sources.0.mapping.group?)"},
		{src, []string{"llm.zzz=1"}, "unknown job key llm.zzz (the keys of llm are provider, base_url, api_key_env, model,"},
		{src, []string{"sinc.kind=neo4j"}, "unknown job key sinc (did you mean sink?)"},
		{src, []string{"llm.concurrency=lots"}, `llm.concurrency: "lots" is not a whole number`},
		{src, []string{"llm.temperature=warm"}, `llm.temperature: "warm" is not a number`},
		{src, []string{"sink.reload=maybe"}, `sink.reload: "maybe" is not true or false`},
		{src + "  concurency: 3\n", nil, "line 6: unknown job key llm.concurency (did you mean llm.concurrency?)"},
		{src + "  rpm: [1, 2]\n", nil, "line 6: llm.rpm: want a single value"},
		{"sources: {path: a.jsonl}\n", nil, "line 1: sources: want a list"},
		{"sources:\n  - path: a.jsonl\n    mapping: {groop: g}\n", nil, "line 3: unknown job key sources.0.mapping.groop (did you mean sources.0.mapping.group?)"},
	} {
		_, err := Parse([]byte(tc.yaml), tc.sets, envOf(nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q with %q: %v, want %q", tc.yaml, tc.sets, err, tc.want)
			continue
		}
		for _, goName := range []string{"int", "float64", "bool", "LLM", "Source", "unmarshal"} {
			if strings.Contains(" "+err.Error()+" ", " "+goName+" ") || strings.Contains(err.Error(), "unmarshal") {
				t.Errorf("%q with %q: %v names the Go type %s", tc.yaml, tc.sets, err, goName)
			}
		}
		if se := new(jobs.SetError); (tc.sets != nil) != errors.As(err, &se) {
			t.Errorf("%q with %q: %v: a SetError is a --set's fault and only that", tc.yaml, tc.sets, err)
		}
	}
}
