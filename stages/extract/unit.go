package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Output is the stored output of one episode (stages.Extraction, which the resolve stage
// reads).
type Output = stages.Extraction

// runUnit extracts one episode in the given mode (asking the LLM only when the plan says so)
// and commits its output, counting the answer repairs in env.Repairs and the unit in
// opts.Counts (once it committed, so once whatever the batch waves). A chit-chat message not asked gives its speaker as its only entity. When an
// answer stays bad (transport.IsBadAnswer) the unit is committed as failed with an empty LLM output (a
// JSON record keeps its declared facts): downstream the episode has no extraction until a later
// run extracts it.
func runUnit(env stages.Env, mode string, ep graph.Episode, p Plan, opts Options) func(context.Context, string) error {
	return func(ctx context.Context, fp string) error {
		var bad stages.Degraded
		out := Output{Entities: []wire.EntityMention{}, Facts: []wire.ExtractedFact{}}
		if p.Skip == SkipChitchat {
			out = speakerOnly(p.Input)
		}
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
		err = stages.Commit(ctx, env, Stage, ep.UUID, fp, &bad, func(tx *checkpoints.Tx) error {
			return tx.PutOutput(ctx, Stage, ep.UUID, ep.GroupID, body)
		})
		// Counted once the unit committed (done or failed), as RunStream counts Stats.Units: a
		// unit waiting for a provider batch runs again in the next wave, one a drain or an abort
		// stopped is not in the store.
		var failed *stages.Failure
		if err == nil || errors.As(err, &failed) {
			kind := p.Skip
			if p.Ask {
				kind = Asked
			}
			opts.Counts.Add(Stage, kind, 1)
		}
		return err
	}
}

// Extract asks the LLM for the entities and facts of one episode: one call in ModeCombined, two
// in ModeTwoCall (one when fewer than two entities are kept). The answers are repaired by the
// hygiene rules (repair), which drop the entities of excluded types and the facts naming them;
// the repairs are counted.
func Extract(ctx context.Context, model stages.LLM, mode string, in wire.ExtractInput) (Output, Repairs, error) {
	var out Output
	if mode == ModeCombined {
		var ex wire.ExtractOutput
		if err := model.Call(ctx, Stage, wire.TaskExtract, in, &ex); err != nil {
			return Output{}, nil, err
		}
		out, rep := repair(Output{Entities: ex.Entities, Facts: ex.Facts}, in)
		return out, rep, nil
	}
	var ents wire.EntitiesOutput
	if err := model.Call(ctx, Stage, wire.TaskExtractEntities, in, &ents); err != nil {
		return Output{}, nil, err
	}
	r := newRepairer(in)
	out.Entities, out.Facts = r.entities(ents.Entities), []wire.ExtractedFact{}
	fin, ok := FactsInput(in, out.Entities)
	if !ok {
		return out, r.rep, nil
	}
	var facts wire.FactsOutput
	if err := model.Call(ctx, Stage, wire.TaskExtractFacts, fin, &facts); err != nil {
		return Output{}, nil, err
	}
	out.Entities, out.Facts = r.facts(out.Entities, facts.Facts)
	out.Quoted = r.quoted
	return out, r.rep, nil
}

// FactsInput is the input of the second call of two-call extraction given the cleaned entities
// of the first (as stored in Output.Entities); ok is false when the call is skipped because fewer
// than two entities were found (a fact links two different entities).
func FactsInput(in wire.ExtractInput, ents []wire.EntityMention) (fin wire.FactsInput, ok bool) {
	if len(ents) < 2 {
		return wire.FactsInput{}, false
	}
	fin = wire.FactsInput{Episode: in.Episode, Previous: in.Previous, Snapshot: in.Snapshot, Known: in.Known,
		EntityTypes: in.EntityTypes, EdgeTypes: in.EdgeTypes, ExcludedTypes: in.ExcludedTypes}
	for _, e := range ents {
		fin.Entities = append(fin.Entities, wire.ExtractedEntity{Name: e.Name, Type: e.Type})
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

// speakerOnly is the output of a message the LLM is not asked about: its speaker (of type
// "Entity", unless that type is excluded) and no fact.
func speakerOnly(in wire.ExtractInput) Output {
	out := Output{Entities: []wire.EntityMention{}, Facts: []wire.ExtractedFact{}}
	if name := strings.TrimSpace(in.Episode.Speaker); name != "" && !isExcluded("Entity", in.ExcludedTypes) {
		out.Entities = append(out.Entities, wire.EntityMention{Name: name, Type: "Entity", Attributes: []wire.AttributeValue{}})
	}
	return out
}

// Input builds the extraction input of eps[i] with, as context, the previous episodes of the
// group, newest first: at most opts.Context of them, and while their contents fit in
// opts.ContextTokens (wire.EstimateTokens; no bound when 0 or less). When even the latest one
// does not fit, it is shown cut to its last opts.ContextTokens, after "…". A previous episode
// leaves out its reference time and source when they are the current episode's.
func Input(eps []graph.Episode, i int, opts Options) wire.ExtractInput {
	cur := episodeIn(eps[i])
	in := wire.ExtractInput{Episode: cur, Previous: []wire.EpisodeIn{},
		EntityTypes: opts.EntityTypes, EdgeTypes: opts.EdgeTypes, ExcludedTypes: opts.ExcludedTypes}
	budget, used := opts.ContextTokens, 0
	for j := i - 1; j >= max(0, i-max(opts.Context, 0)); j-- {
		p := episodeIn(eps[j])
		if p.ReferenceTime == cur.ReferenceTime {
			p.ReferenceTime = ""
		}
		if p.Source == cur.Source {
			p.Source = ""
		}
		if budget > 0 {
			n := wire.EstimateTokens(p.Content)
			if used+n > budget {
				if len(in.Previous) == 0 {
					p.Content = tail(p.Content, budget)
					in.Previous = append(in.Previous, p)
				}
				break
			}
			used += n
		}
		in.Previous = append(in.Previous, p)
	}
	slices.Reverse(in.Previous)
	return in
}

// tail is "…" and the end of s that fits in n tokens (wire.EstimateTokens), from a word start.
func tail(s string, n int) string {
	ascii, other, k := 0, 0, len(s)
	for k > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:k])
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
		if (ascii+3)/4+other > n-1 { // "…" takes one
			break
		}
		k -= size
	}
	rest := s[k:]
	if before, _ := utf8.DecodeLastRuneInString(s[:k]); k > 0 && !unicode.IsSpace(before) { // cut inside a word
		if sp := strings.IndexFunc(rest, unicode.IsSpace); sp >= 0 {
			rest = rest[sp:]
		} else {
			rest = ""
		}
	}
	return "…" + strings.TrimSpace(rest)
}

func episodeIn(e graph.Episode) wire.EpisodeIn {
	return wire.EpisodeIn{ReferenceTime: e.ReferenceTime.UTC().Format(time.RFC3339), Source: e.Source,
		Speaker: e.Speaker, Content: e.Content}
}

// runWindow extracts a window's episodes with one call (when the window asks) and commits every
// episode's output and record together, under the window's fingerprint. The answer is shared
// among the episodes by split (the hygiene rules included; repairs counted in env.Repairs); an
// episode of a window that does not ask gets what it would get alone (its speaker, for a
// chit-chat message). When the answer stays bad every episode of the window is committed as
// failed with an empty output, so the next run asks the window again. Each episode is counted
// in opts.Counts as Asked when the window asked, else by its own reason; each window asked once
// under windowsKind.
func runWindow(env stages.Env, u unit, opts Options) func(context.Context, string) error {
	return func(ctx context.Context, fp string) error {
		var bad stages.Degraded
		outs := make([]Output, len(u.eps))
		for k, p := range u.plans {
			outs[k] = Output{Entities: []wire.EntityMention{}, Facts: []wire.ExtractedFact{}}
			if p.Skip == SkipChitchat && !u.ask {
				outs[k] = speakerOnly(p.Input)
			}
		}
		if u.ask {
			var ans wire.WindowOutput
			if err := env.LLM.Call(ctx, Stage, wire.TaskExtractWindow, u.win, &ans); err != nil {
				if err := bad.Absorb(err); err != nil {
					return err
				}
			} else {
				var rep Repairs
				outs, rep = split(ans, u.plans)
				env.Repairs.AddAll(Stage, rep)
			}
		}
		bodies := make([][]byte, len(u.eps))
		units := make([]string, len(u.eps))
		for k, ep := range u.eps {
			body, err := json.Marshal(outs[k])
			if err != nil {
				return fmt.Errorf("encoding extraction: %w", err)
			}
			bodies[k], units[k] = body, ep.UUID
		}
		err := stages.CommitAll(ctx, env, Stage, units, fp, &bad, func(tx *checkpoints.Tx) error {
			for k, ep := range u.eps {
				if err := tx.PutOutput(ctx, Stage, ep.UUID, ep.GroupID, bodies[k]); err != nil {
					return err
				}
			}
			return nil
		})
		var failed *stages.Failure
		if err == nil || errors.As(err, &failed) {
			for _, p := range u.plans {
				kind := p.Skip
				if u.ask {
					kind = Asked
				}
				opts.Counts.Add(Stage, kind, 1)
			}
			if u.ask {
				opts.Counts.Add(windowsKind, Asked, 1)
			}
		}
		return err
	}
}

// windowsKind is the Counts stage under which the windows asked are counted (the report's
// extract_windows).
const windowsKind = "extract_windows"
