package pacing

import "github.com/tkgraph/backfill/internal/options"

// Limits are the pacer's job keys (llm.concurrency, llm.rpm, llm.tpm): one bound on requests
// in flight and one RPM/TPM budget for chat and embeddings together (PacerOptions).
type Limits struct {
	Concurrency int
	RPM, TPM    int // 0: none
}

// Declare declares the pacer's job keys on s's fields.
func (s *Limits) Declare(sec *options.Section) {
	sec.Int(&s.Concurrency, "concurrency", "the most LLM requests in flight at once in a run, chat and embeddings "+
		"together: the size of the run's one pacer. Stage units, the calls of a unit and embedding batches run in pools of "+
		"the same size, whose workers wait for a pacer slot, so they never add requests",
		options.Default(DefaultConcurrency), options.Max(1024))
	sec.Int(&s.RPM, "rpm", "requests per minute, for chat and embeddings together (0 = none); requests are spread evenly so "+
		"no 60-second window exceeds it")
	sec.Int(&s.TPM, "tpm", "estimated tokens per minute, for chat and embeddings together (0 = none)")
}

// DeclarePrices declares llm.prices, the job's additions to DefaultPrices (Prices.With), on *p.
func DeclarePrices(sec *options.Section, p *map[string]Price) {
	options.MapOf(sec, p, "prices", "in USD per million tokens, by model name, for chat and embedding models; adds to "+
		"or replaces the built-in list prices (gpt-4o, gpt-4o-mini, gpt-4.1(-mini/-nano), gpt-5(-mini/-nano), o3, o3-mini, "+
		"o4-mini, text-embedding-3-small/-large, ada-002, with batch prices at half the online ones; offline models cost "+
		"0; check their `as_of` and `source`, which `plan` prints, before relying on a plan's dollars). Dated snapshots "+
		"(`gpt-4o-mini-2024-07-18`) and router prefixes (`openai/…`) match their base name",
		func(s *options.Section, p *Price) {
			s.Float(&p.InputPerMTok, "input_per_mtok", "input tokens")
			s.Float(&p.CachedInputPerMTok, "cached_input_per_mtok", "input tokens the provider served from its prompt cache",
				options.DefaultText("`input_per_mtok`"))
			s.Float(&p.OutputPerMTok, "output_per_mtok", "output tokens (reasoning tokens included)")
			s.Float(&p.BatchInputPerMTok, "batch_input_per_mtok", "input tokens of a batch request (an entry without batch "+
				"prices bills batches at its online prices)", options.DefaultText("`input_per_mtok`"))
			s.Float(&p.BatchOutputPerMTok, "batch_output_per_mtok", "output tokens of a batch request",
				options.DefaultText("`output_per_mtok`"))
			s.String(&p.AsOf, "as_of", "when the entry's prices were read, as `plan` prints it with each model's prices "+
				"(the built-in entries: "+DefaultPricesAsOf+")")
			s.String(&p.Source, "source", "where the entry's prices were read, printed with `as_of` (the built-in entries: "+
				"the provider's price page, standard tier)", options.DefaultText("the job's llm.prices"))
		})
}

// DeclareBudget declares limits.max_cost_usd, the cap of NewBudget, on *p.
func DeclareBudget(sec *options.Section, p *float64) {
	sec.Float(p, "max_cost_usd", "spending cap of one run, chat and embeddings together (0 = none). Each request reserves "+
		"its estimated cost first; once the cap would be passed, no request starts, the ones in flight finish and are "+
		"cached, and the run stops with exit 3 (`budget_stopped` in the report). Cached answers cost 0. In batch mode each "+
		"request books its estimate at the batch price when it is queued, before its batch is submitted, and the batch is "+
		"corrected to its real cost when its answers arrive; the request that would pass the cap is refused, the ones "+
		"queued before it are submitted. Needs a price for both models")
}
