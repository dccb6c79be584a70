package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages"
)

// Output is the stored output of one episode: llm.ExtractOutput with the entities' attributes
// (JSON-compatible with it, so both decode into Output).
type Output struct {
	Entities []llm.EntityMention `json:"entities"`
	Facts    []llm.ExtractedFact `json:"facts"`
	// Object and Declared are the object and declared facts of a JSON record (graph.Record),
	// so that an extraction holds every statement of its episode; absent for other episodes.
	Object   string              `json:"object,omitempty"`
	Declared []graph.Declaration `json:"declared,omitempty"`
}

// runUnit extracts one episode in the given mode (asking the LLM only when the plan says so)
// and commits its output.
func runUnit(env stages.Env, mode string, ep graph.Episode, p Plan) func(context.Context, string) error {
	return func(ctx context.Context, fp string) error {
		out := Output{Entities: []llm.EntityMention{}, Facts: []llm.ExtractedFact{}}
		if p.Ask {
			var err error
			if out, err = Extract(ctx, env.LLM, mode, p.Input); err != nil {
				return err
			}
		}
		if r := ep.Record; r != nil {
			out.Object, out.Declared = r.Object, r.Declared
		}
		body, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encoding extraction: %w", err)
		}
		return env.Store.CommitUnit(ctx, Stage, ep.UUID, fp, func(tx *checkpoints.Tx) error {
			return tx.PutOutput(ctx, Stage, ep.UUID, ep.GroupID, body)
		})
	}
}

// Extract asks the LLM for the entities and facts of one episode: one call in ModeCombined, two
// in ModeTwoCall (one when fewer than two entities are found). Entities of excluded types and the
// facts naming them are dropped.
func Extract(ctx context.Context, model stages.LLM, mode string, in llm.ExtractInput) (Output, error) {
	var out Output
	if mode == ModeCombined {
		var ex llm.ExtractOutput
		if err := model.Call(ctx, Stage, llm.TaskExtract, in, &ex); err != nil {
			return Output{}, err
		}
		for _, e := range ex.Entities {
			out.Entities = append(out.Entities, llm.EntityMention{Name: e.Name, Type: e.Type, Attributes: []llm.AttributeValue{}})
		}
		out.Facts = ex.Facts
		return clean(out, in.ExcludedTypes), nil
	}
	var ents llm.EntitiesOutput
	if err := model.Call(ctx, Stage, llm.TaskExtractEntities, in, &ents); err != nil {
		return Output{}, err
	}
	out = clean(Output{Entities: ents.Entities}, in.ExcludedTypes)
	fin, ok := FactsInput(in, out.Entities)
	if !ok {
		return out, nil
	}
	var facts llm.FactsOutput
	if err := model.Call(ctx, Stage, llm.TaskExtractFacts, fin, &facts); err != nil {
		return Output{}, err
	}
	out.Facts = facts.Facts
	return clean(out, in.ExcludedTypes), nil
}

// FactsInput is the input of the second call of two-call extraction given the cleaned entities
// of the first (as stored in Output.Entities); ok is false when the call is skipped because fewer
// than two entities were found (a fact links two different entities).
func FactsInput(in llm.ExtractInput, ents []llm.EntityMention) (fin llm.FactsInput, ok bool) {
	if len(ents) < 2 {
		return llm.FactsInput{}, false
	}
	fin = llm.FactsInput{Episode: in.Episode, Previous: in.Previous, Snapshot: in.Snapshot, Known: in.Known,
		EntityTypes: in.EntityTypes, EdgeTypes: in.EdgeTypes, ExcludedTypes: in.ExcludedTypes}
	for _, e := range ents {
		fin.Entities = append(fin.Entities, llm.ExtractedEntity{Name: e.Name, Type: e.Type})
	}
	return fin, true
}

// clean drops unnamed entities, repeated names (the first wins), entities of excluded types and
// the facts that name an excluded entity, and turns nil lists into empty ones.
func clean(out Output, excluded []string) Output {
	gone := map[string]bool{}
	seen := map[string]bool{}
	ents := []llm.EntityMention{}
	for _, e := range out.Entities {
		name := strings.TrimSpace(e.Name)
		if name == "" {
			continue
		}
		if isExcluded(e.Type, excluded) {
			gone[name] = true
			continue
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		e.Name = name
		if e.Attributes == nil {
			e.Attributes = []llm.AttributeValue{}
		}
		ents = append(ents, e)
	}
	facts := []llm.ExtractedFact{}
	for _, f := range out.Facts {
		if !gone[strings.TrimSpace(f.Source)] && !gone[strings.TrimSpace(f.Target)] {
			facts = append(facts, f)
		}
	}
	return Output{Entities: ents, Facts: facts}
}

// isExcluded reports whether typ ("" meaning "Entity") is one of the excluded types.
func isExcluded(typ string, excluded []string) bool {
	if typ == "" {
		typ = "Entity"
	}
	for _, x := range excluded {
		if strings.EqualFold(strings.TrimSpace(x), typ) {
			return true
		}
	}
	return false
}

// Input builds the extraction input of eps[i] with up to opts.Context previous episodes.
func Input(eps []graph.Episode, i int, opts Options) llm.ExtractInput {
	n := opts.Context
	if n < 0 {
		n = 0
	}
	from := max(0, i-n)
	in := llm.ExtractInput{Episode: episodeIn(eps[i]), Previous: []llm.EpisodeIn{},
		EntityTypes: opts.EntityTypes, EdgeTypes: opts.EdgeTypes, ExcludedTypes: opts.ExcludedTypes}
	for _, p := range eps[from:i] {
		in.Previous = append(in.Previous, episodeIn(p))
	}
	return in
}

func episodeIn(e graph.Episode) llm.EpisodeIn {
	return llm.EpisodeIn{ReferenceTime: e.ReferenceTime.UTC().Format(time.RFC3339), Source: e.Source,
		Speaker: e.Speaker, Content: e.Content}
}
