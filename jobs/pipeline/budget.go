package pipeline

import (
	"fmt"
	"log/slog"

	"github.com/tkgraph/backfill/llm/pacing"
)

// Prices is the job's price table: pacing.DefaultPrices with llm.prices added or replaced; an
// entry of the job that names no source is sourced to the job's llm.prices.
func (j *Job) Prices() pacing.Prices {
	over := make(pacing.Prices, len(j.LLM.Prices))
	for name, p := range j.LLM.Prices {
		if p.Source == "" {
			p.Source = "the job's llm.prices"
		}
		over[name] = p
	}
	return pacing.DefaultPrices().With(over)
}

// ModelPrices are the prices of the job's chat model and embedding model in its price table,
// nil for a model that has none: the one lookup of the budget check, the warning of a run and
// the plan.
func (j *Job) ModelPrices() (chat, embedding *pacing.Price) {
	prices := j.Prices()
	if p, ok := prices.Lookup(j.LLM.Model); ok {
		chat = &p
	}
	if p, ok := prices.Lookup(j.Embedder.Model); ok {
		embedding = &p
	}
	return chat, embedding
}

// validateCost checks llm.prices and limits.max_cost_usd: a budget needs a price for the chat
// model and the embedding model, or it could not be enforced.
func (j *Job) validateCost() error {
	if j.Limits.MaxCostUSD == 0 { // prices and the cap are finite and not negative (options.Section.Validate)
		return nil
	}
	chat, embedding := j.ModelPrices()
	for _, m := range []struct {
		key, model string
		price      *pacing.Price
	}{{"llm.model", j.LLM.Model, chat}, {"embedder.model", j.Embedder.Model, embedding}} {
		if m.price == nil {
			return fmt.Errorf("limits.max_cost_usd needs a price for %s %q: add llm.prices.%s {input_per_mtok, output_per_mtok}",
				m.key, m.model, m.model)
		}
	}
	return nil
}

// WarnUnpriced logs that a model has no price, so its cost is reported as 0 (nothing when log is
// nil).
func (j *Job) WarnUnpriced(log *slog.Logger) {
	if log == nil {
		return
	}
	chat, embedding := j.ModelPrices()
	if chat == nil {
		log.Warn("model has no price: its cost is reported as 0 (add it to llm.prices)", "model", j.LLM.Model)
	}
	if embedding == nil && j.Embedder.Model != j.LLM.Model { // one model for both: one line
		log.Warn("model has no price: its cost is reported as 0 (add it to llm.prices)", "model", j.Embedder.Model)
	}
}
