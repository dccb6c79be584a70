package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// TicketsResult is the bundled ticket change log (examples/tickets.jsonl) through providers/stub
// under each set of JSON record options, from none to all of them.
type TicketsResult struct {
	Records int          `json:"records"`
	Runs    []TicketsRun `json:"runs"`
	// DeclaredSame says whether the declared facts (with their intervals) of the run with every
	// option equal those of the same run with stages.extract.llm: off.
	DeclaredSame  bool `json:"declared_same"`
	DeclaredFacts int  `json:"declared_facts"`
}

// TicketsRun is one configuration's run.
type TicketsRun struct {
	Name                  string  `json:"name"`
	Options               string  `json:"options"`
	BodyTokensPerRecord   float64 `json:"body_tokens_per_record"` // the content episodes keep (after pruning)
	ExtractCalls          int     `json:"extract_calls"`
	ExtractPromptTokens   int     `json:"extract_prompt_tokens"`
	ExtractCallsPerRecord float64 `json:"extract_calls_per_record"`
	ExtractTokensRecord   float64 `json:"extract_prompt_tokens_per_record"`
	Calls                 int     `json:"calls"` // every stage, chat and embeddings, as the stub counted them
	PromptTokens          int     `json:"prompt_tokens"`
	CallsPerRecord        float64 `json:"calls_per_record"`
	PromptTokensPerRecord float64 `json:"prompt_tokens_per_record"`
	Facts                 int     `json:"facts"`
	Seconds               float64 `json:"seconds"`
}

// ticketConfig is one set of options: the source's extra mapping, json and facts keys, and
// what they are in words.
type ticketConfig struct {
	name, object, json, facts, extractLLM, desc string
}

// ticketConfigs grow from no option to all of those of jobs/examples/tickets.yaml.
func ticketConfigs(ex *pipeline.Job) ([]ticketConfig, error) {
	src := ex.Sources[0]
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	var decls []map[string]string
	for _, f := range src.Facts {
		d := map[string]string{"subject": f.Subject, "relation": f.Relation, "object": f.Object}
		for k, v := range map[string]string{"subject_type": f.SubjectType, "object_type": f.ObjectType, "kind": f.Kind, "fact": f.Fact} {
			if v != "" {
				d[k] = v
			}
		}
		decls = append(decls, d)
	}
	drop, facts, text := js(src.JSON.Drop), js(decls), js(src.JSON.TextFields)
	if src.Mapping.Object == "" || len(src.Facts) == 0 || len(src.JSON.TextFields) == 0 {
		return nil, fmt.Errorf("jobs/examples/tickets.yaml no longer sets object, facts and text_fields")
	}
	obj := ", object: " + src.Mapping.Object
	pruned := fmt.Sprintf("json.drop: the %d patterns of jobs/examples/tickets.yaml (nulls and empty values dropped)", len(src.JSON.Drop))
	withObj := pruned + "; mapping.object: " + src.Mapping.Object
	withFacts := withObj + fmt.Sprintf("; facts: its %d declarations", len(src.Facts))
	all := withFacts + "; json.text_fields: " + strings.Join(src.JSON.TextFields, ", ")
	return []ticketConfig{
		{name: "none", json: "{drop_nulls: false, drop_empty: false}", facts: "[]",
			desc: "the whole payload, previous episodes within 120 tokens as context (json.drop_nulls and drop_empty false)"},
		{name: "pruning", json: "{drop: " + drop + "}", facts: "[]", desc: pruned},
		{name: "pruning + object", object: obj, json: "{drop: " + drop + "}", facts: "[]", desc: withObj},
		{name: "pruning + object + facts", object: obj, json: "{drop: " + drop + "}", facts: facts, desc: withFacts},
		{name: "all (+ text_fields)", object: obj, json: "{drop: " + drop + ", text_fields: " + text + "}", facts: facts,
			desc: all + " (jobs/examples/tickets.yaml)"},
		{name: "all, stages.extract.llm: off", object: obj, json: "{drop: " + drop + ", text_fields: " + text + "}", facts: facts,
			extractLLM: "off", desc: all + "; stages.extract.llm: off (declared facts only)"},
	}, nil
}

// benchTickets runs the ticket log under each configuration, each through a fresh stub.
func benchTickets(ctx context.Context, bin, dir, root string) (*TicketsResult, error) {
	ex, err := pipeline.Load(filepath.Join(root, "jobs/examples/tickets.yaml"), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		return nil, err
	}
	configs, err := ticketConfigs(ex)
	if err != nil {
		return nil, err
	}
	var types []map[string]any
	for _, t := range ex.Ontology.EntityTypes {
		types = append(types, map[string]any{"name": t.Name, "description": t.Description})
	}
	ontology, _ := json.Marshal(map[string]any{"entity_types": types})
	res := &TicketsResult{}
	var declared [][]string // of the last two runs: every option, with and without the LLM
	for k, c := range configs {
		checkpoint := filepath.Join(dir, fmt.Sprintf("tickets-%d.db", k))
		run, records, err := ticketRun(ctx, bin, dir, root, checkpoint, c, string(ontology))
		if err != nil {
			return res, fmt.Errorf("%s: %w", c.name, err)
		}
		res.Records = records
		res.Runs = append(res.Runs, run)
		if k >= len(configs)-2 {
			d, err := declaredFacts(ctx, checkpoint, ex)
			if err != nil {
				return res, err
			}
			declared = append(declared, d)
		}
	}
	res.DeclaredFacts = len(declared[0])
	res.DeclaredSame = len(declared[0]) > 0 && slices.Equal(declared[0], declared[1])
	return res, nil
}

// ticketRun runs one configuration through a fresh stub and returns its numbers and the
// number of records.
func ticketRun(ctx context.Context, bin, dir, root, checkpoint string, c ticketConfig, ontology string) (TicketsRun, int, error) {
	s, err := harness.StartStub(stub.Options{}, nil)
	if err != nil {
		return TicketsRun{}, 0, err
	}
	defer s.Close()
	src := fmt.Sprintf(`path: %s
    format: jsonl
    source: json
    mapping: {group: repository.name, reference_time: issue.updated_at, record_key: delivery, speaker: sender.login, body: "*"%s}
    json: %s
    facts: %s`, filepath.Join(root, "examples/tickets.jsonl"), c.object, c.json, c.facts)
	yaml := harness.StubJobYAML("bench-tickets", checkpoint, src, s.URL, 4) + "ontology: " + ontology + "\n"
	if c.extractLLM != "" {
		yaml += "stages: {extract: {llm: " + c.extractLLM + "}}\n"
	}
	job := filepath.Join(dir, "tickets.yaml")
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		return TicketsRun{}, 0, err
	}
	start := time.Now()
	rep, _, err := runJob(ctx, bin, job, dir, harness.Options{})
	if err != nil {
		return TicketsRun{}, 0, err
	}
	st, err := s.Stats()
	if err != nil {
		return TicketsRun{}, 0, err
	}
	n := rep.Episodes
	if rep.Records == nil || rep.Records.Records != n || n == 0 {
		return TicketsRun{}, 0, fmt.Errorf("the report counts %+v JSON records of %d episodes", rep.Records, n)
	}
	x := rep.LLMByStage["extract"]
	f := float64(n)
	return TicketsRun{Name: c.name, Options: c.desc, BodyTokensPerRecord: float64(rep.Records.TokensAfter) / f,
		ExtractCalls: x.Calls, ExtractPromptTokens: x.PromptTokens, ExtractCallsPerRecord: float64(x.Calls) / f,
		ExtractTokensRecord: float64(x.PromptTokens) / f, Calls: int(st.Calls), PromptTokens: int(st.PromptTokens),
		CallsPerRecord: float64(st.Calls) / f, PromptTokensPerRecord: float64(st.PromptTokens) / f, Facts: rep.Facts,
		Seconds: time.Since(start).Seconds()}, n, nil
}

// declaredFacts lists the facts of the job's declared relations in a store, with their
// endpoints and intervals as finally known, sorted.
func declaredFacts(ctx context.Context, checkpoint string, ex *pipeline.Job) ([]string, error) {
	var relations []string
	for _, f := range ex.Sources[0].Facts {
		relations = append(relations, f.Relation)
	}
	store, err := checkpoints.Open(ctx, checkpoint)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	var facts []graph.Fact
	var versions []graph.FactVersion
	if err := store.EachFact(ctx, "", func(f graph.Fact) error { facts = append(facts, f); return nil }); err != nil {
		return nil, err
	}
	if err := store.EachFactVersion(ctx, "", func(v graph.FactVersion) error { versions = append(versions, v); return nil }); err != nil {
		return nil, err
	}
	var out []string
	at := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, f := range graph.Known(facts, versions, time.Now()) {
		if slices.Contains(relations, f.Name) {
			out = append(out, strings.Join([]string{f.UUID, f.SourceUUID, f.TargetUUID, f.Fact, at(f.ValidAt), at(f.InvalidAt), at(f.ExpiredAt)}, " | "))
		}
	}
	slices.Sort(out)
	return out, nil
}
