package planner

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/stages"
)

// WriteTable prints the plan; "~" marks an estimate.
func (p *Plan) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "job\t%s\n", p.Job)
	fmt.Fprintf(tw, "episodes\t%d in %d groups (%d rows quarantined)\n", p.Episodes, p.Groups, p.Quarantined)
	if p.Nothing() {
		fmt.Fprintf(tw, "to do\tnothing: all %d units of the stages are done under this job's settings; a run reads the sources again and asks no LLM\n", p.Total.Units)
	} else {
		calls := fmt.Sprint(p.Total.Calls)
		if !p.Total.CallsExact {
			calls = "~" + calls
		}
		fmt.Fprintf(tw, "to do\t%d of %d units (%d done), %s LLM calls\n", p.Total.Units-p.Total.Done, p.Total.Units, p.Total.Done, calls)
	}
	for _, n := range p.Needs {
		fmt.Fprintf(tw, "MISSING\t%s\n", n)
	}
	fmt.Fprintf(tw, "model\t%s, %s\n", priced(p.Model, p.Price), p.Mode)
	fmt.Fprintf(tw, "embedding model\t%s, %s\n", priced(p.EmbeddingModel, p.EmbeddingPrice), p.EmbeddingMode)
	if r := p.Records; r != nil {
		fmt.Fprintf(tw, "json records\t%d (%d pruned): ~%d tokens per record before pruning, ~%d after; %d skip the LLM\n",
			r.Records, r.Pruned, r.TokensBefore/r.Records, r.TokensAfter/r.Records, r.SkipLLM)
		if m := r.Missing(); m != "" {
			fmt.Fprintf(tw, "declared facts\t%s: they state nothing about it\n", m)
		}
	}
	fmt.Fprintf(tw, "\nstage\tunits\tdone\tcalls\tcached\ttokens in\tprompt-cached\ttokens out\tonline USD\tinput / cached input / output\tbatch USD\tbasis\n")
	for _, s := range append(append([]stages.Estimate(nil), p.Stages...), p.Total) {
		calls := fmt.Sprint(s.Calls)
		if !s.CallsExact {
			calls = "~" + calls
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t~%d\t~%d\t~%d\t~%.4f\t%.4f / %.4f / %.4f\t~%.4f\t%s\n", s.Stage, s.Units, s.Done, calls, s.CachedCalls,
			s.PromptTokens, s.CachedPromptTokens, s.CompletionTokens, s.CostUSD, s.Cost.Input, s.Cost.CachedInput, s.Cost.Output, s.BatchCostUSD, s.Basis)
	}
	a := p.Assumptions
	fmt.Fprintf(tw, "\nassumptions\t%s: %.2f entities and %.2f facts per episode, %.0f%% of facts judged, "+
		"%.0f%% of entities summarized by the LLM, %.1f members per community, %.0f%% of entities and facts in an ambiguous pair\n",
		a.Source, a.EntitiesPerEpisode, a.FactsPerEpisode, 100*a.JudgedShare, 100*a.LongSummaryShare, a.CommunitySize, 100*a.GreyPairShare)
	for _, n := range p.Notes {
		fmt.Fprintf(tw, "note\t%s\n", n)
	}
	if len(p.Needs) > 0 {
		fmt.Fprintf(tw, "note\tMISSING: what a run needs and this machine lacks; `backfill run` refuses to start (exit 2) until it is there\n")
	}
	fmt.Fprintf(tw, "note\t~ marks an estimate; tokens are estimated at about 4 bytes (or 1 non-ASCII character) per token\n")
	tw.Flush()
}

// priced names a model with its online and batch prices.
func priced(model string, p *pacing.Price) string {
	if p == nil {
		return model + " (no price)"
	}
	b, cached := p.Batch(), p.CachedInputPerMTok
	if cached == 0 {
		cached = p.InputPerMTok
	}
	src := ""
	if p.AsOf != "" || p.Source != "" {
		src = fmt.Sprintf("; as of %s, %s", cmp.Or(p.AsOf, "an unknown date"), cmp.Or(p.Source, "no source given"))
	}
	return fmt.Sprintf("%s ($%g in, $%g cached in, $%g out per million tokens; batch $%g in, $%g out%s)", model, p.InputPerMTok, cached,
		p.OutputPerMTok, b.InputPerMTok, b.OutputPerMTok, src)
}

// join lists names as "a, b and c".
func join(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
