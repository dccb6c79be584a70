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
// and commits its output, counting the answer repairs in env.Repairs. When an answer stays bad
// (llm.IsBadAnswer) the unit is committed as failed with an empty LLM output (a JSON record
// keeps its declared facts): downstream the episode has no extraction until a later run
// extracts it.
func runUnit(env stages.Env, mode string, ep graph.Episode, p Plan) func(context.Context, string) error {
	return func(ctx context.Context, fp string) error {
		var bad stages.Degraded
		out := Output{Entities: []llm.EntityMention{}, Facts: []llm.ExtractedFact{}}
		if p.Ask {
			got, rep, err := Extract(ctx, env.LLM, mode, p.Input)
			if err != nil {
				if err := bad.Absorb(err); err != nil {
					return err
				}
			} else {
				out = got
			}
			env.Repairs.AddAll(Stage, rep)
		}
		if r := ep.Record; r != nil {
			out.Object, out.Declared = r.Object, r.Declared
		}
		body, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encoding extraction: %w", err)
		}
		return stages.Commit(ctx, env, Stage, ep.UUID, fp, &bad, func(tx *checkpoints.Tx) error {
			return tx.PutOutput(ctx, Stage, ep.UUID, ep.GroupID, body)
		})
	}
}

// Extract asks the LLM for the entities and facts of one episode: one call in ModeCombined, two
// in ModeTwoCall (one when fewer than two entities are kept). The answers are repaired by the
// hygiene rules (repair), which drop the entities of excluded types and the facts naming them;
// the repairs are counted.
func Extract(ctx context.Context, model stages.LLM, mode string, in llm.ExtractInput) (Output, Repairs, error) {
	var out Output
	if mode == ModeCombined {
		var ex llm.ExtractOutput
		if err := model.Call(ctx, Stage, llm.TaskExtract, in, &ex); err != nil {
			return Output{}, nil, err
		}
		for _, e := range ex.Entities {
			out.Entities = append(out.Entities, llm.EntityMention{Name: e.Name, Type: e.Type, Attributes: []llm.AttributeValue{}})
		}
		out.Facts = ex.Facts
		out, rep := repair(out, in)
		return out, rep, nil
	}
	var ents llm.EntitiesOutput
	if err := model.Call(ctx, Stage, llm.TaskExtractEntities, in, &ents); err != nil {
		return Output{}, nil, err
	}
	out, rep := repair(Output{Entities: ents.Entities}, in)
	fin, ok := FactsInput(in, out.Entities)
	if !ok {
		return out, rep, nil
	}
	var facts llm.FactsOutput
	if err := model.Call(ctx, Stage, llm.TaskExtractFacts, fin, &facts); err != nil {
		return Output{}, nil, err
	}
	out.Facts = facts.Facts
	out, more := repair(out, in)
	for k, n := range more {
		rep[k] += n
	}
	return out, rep, nil
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
