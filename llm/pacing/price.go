package pacing

import (
	"slices"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// Price is what a model costs, in US dollars per million tokens. Reasoning tokens are billed
// as output: APIs count them inside completion_tokens.
type Price struct {
	InputPerMTok       float64 `json:"input_per_mtok" yaml:"input_per_mtok"`
	CachedInputPerMTok float64 `json:"cached_input_per_mtok,omitempty" yaml:"cached_input_per_mtok"` // 0 = InputPerMTok
	OutputPerMTok      float64 `json:"output_per_mtok" yaml:"output_per_mtok"`
	// BatchInputPerMTok and BatchOutputPerMTok are the prices of the provider's batch API
	// (llm.mode: batch); 0 means the online price.
	BatchInputPerMTok  float64 `json:"batch_input_per_mtok,omitempty" yaml:"batch_input_per_mtok"`
	BatchOutputPerMTok float64 `json:"batch_output_per_mtok,omitempty" yaml:"batch_output_per_mtok"`
	// AsOf and Source say when and where the prices were read (DefaultPricesAsOf and
	// DefaultPricesSource for the built-in entries; a job's entry may give its own).
	AsOf   string `json:"as_of,omitempty" yaml:"as_of"`
	Source string `json:"source,omitempty" yaml:"source"`
}

// Cost is a priced usage in US dollars, by kind of token: prompt tokens billed at the input
// price, prompt tokens the provider served from its prompt cache at the cached input price, and
// completion tokens (reasoning included) at the output price.
type Cost struct {
	Input       float64 `json:"input_usd"`
	CachedInput float64 `json:"cached_input_usd"`
	Output      float64 `json:"output_usd"`
}

// Total is the cost of every kind.
func (c Cost) Total() float64 { return c.Input + c.CachedInput + c.Output }

// Add returns c with o added.
func (c Cost) Add(o Cost) Cost {
	return Cost{Input: c.Input + o.Input, CachedInput: c.CachedInput + o.CachedInput, Output: c.Output + o.Output}
}

// DefaultPricesAsOf and DefaultPricesSource date and name the list prices of DefaultPrices: the
// providers' public price pages, standard tier, as read when the table was last updated. Check
// them before relying on a plan's dollars; a job's llm.prices entry replaces an entry.
const (
	DefaultPricesAsOf   = "2026-11-29"
	DefaultPricesSource = "https://openai.com/api/pricing (standard tier; batch prices at half)"
)

// Batch is the price of a request sent through a provider batch: BatchInputPerMTok and
// BatchOutputPerMTok, each the online price when unset. Prompt caching is not counted in
// batches: every prompt token is billed at the batch input price.
func (p Price) Batch() Price {
	in, out := p.BatchInputPerMTok, p.BatchOutputPerMTok
	if in == 0 {
		in = p.InputPerMTok
	}
	if out == 0 {
		out = p.OutputPerMTok
	}
	return Price{InputPerMTok: in, CachedInputPerMTok: in, OutputPerMTok: out, AsOf: p.AsOf, Source: p.Source}
}

// Cost is the price of one answer's usage (Costs, in total).
func (p Price) Cost(u wire.TokenUsage) float64 { return p.Costs(u).Total() }

// Costs prices one answer's usage by kind of token. Prompt tokens the provider served from its
// prompt cache are billed at CachedInputPerMTok when it is set.
func (p Price) Costs(u wire.TokenUsage) Cost {
	cached := 0
	if u.PromptTokensDetails != nil {
		cached = u.PromptTokensDetails.CachedTokens
	}
	return p.Tokens(u.PromptTokens, cached, u.CompletionTokens)
}

// Tokens prices prompt tokens in, cached of them served from the provider's prompt cache, and
// completion tokens out.
func (p Price) Tokens(prompt, cached, completion int) Cost {
	cached = min(max(cached, 0), prompt)
	cachedPrice := p.CachedInputPerMTok
	if cachedPrice == 0 {
		cachedPrice = p.InputPerMTok
	}
	return Cost{Input: float64(prompt-cached) * p.InputPerMTok / 1e6, CachedInput: float64(cached) * cachedPrice / 1e6,
		Output: float64(completion) * p.OutputPerMTok / 1e6}
}

// Estimate is the price of a request of prompt tokens in and completion tokens out.
func (p Price) Estimate(prompt, completion int) float64 {
	return (float64(prompt)*p.InputPerMTok + float64(completion)*p.OutputPerMTok) / 1e6
}

// PromptCache is a provider's prompt-cache rule: a request's prompt is served from the cache up
// to the longest prefix an earlier request sent, in whole Blocks of tokens, when that prefix is
// at least Min tokens. OpenAIPromptCache is OpenAI's documented rule; providers/stub imitates
// it, and a plan estimates the cached prompt tokens of extraction with it.
type PromptCache struct {
	Min, Block int
}

// OpenAIPromptCache is OpenAI's documented rule: prompts of 1,024 tokens or more, cached in
// increments of 128 tokens.
var OpenAIPromptCache = PromptCache{Min: 1024, Block: 128}

// Cached is how many tokens of a prefix of shared tokens (sent before by an earlier request)
// the rule serves from the cache.
func (r PromptCache) Cached(shared int) int {
	if r.Block <= 0 {
		return 0
	}
	if n := shared / r.Block * r.Block; n >= r.Min {
		return n
	}
	return 0
}

// Prices maps model names to prices.
type Prices map[string]Price

// DefaultPrices are list prices (USD per million tokens, standard tier) of common models, and 0
// for the offline models, with batch prices at half the online ones (the OpenAI Batch API's
// discount), as of DefaultPricesAsOf from DefaultPricesSource. A job's llm.prices entries
// replace or add to them.
func DefaultPrices() Prices {
	return halfForBatch(Prices{
		"offline-rules-v1":       {},
		"hashing-v1":             {},
		"gpt-4o":                 {InputPerMTok: 2.50, CachedInputPerMTok: 1.25, OutputPerMTok: 10.00},
		"gpt-4o-mini":            {InputPerMTok: 0.15, CachedInputPerMTok: 0.075, OutputPerMTok: 0.60},
		"gpt-4.1":                {InputPerMTok: 2.00, CachedInputPerMTok: 0.50, OutputPerMTok: 8.00},
		"gpt-4.1-mini":           {InputPerMTok: 0.40, CachedInputPerMTok: 0.10, OutputPerMTok: 1.60},
		"gpt-4.1-nano":           {InputPerMTok: 0.10, CachedInputPerMTok: 0.025, OutputPerMTok: 0.40},
		"gpt-5":                  {InputPerMTok: 1.25, CachedInputPerMTok: 0.125, OutputPerMTok: 10.00},
		"gpt-5-mini":             {InputPerMTok: 0.25, CachedInputPerMTok: 0.025, OutputPerMTok: 2.00},
		"gpt-5-nano":             {InputPerMTok: 0.05, CachedInputPerMTok: 0.005, OutputPerMTok: 0.40},
		"o3":                     {InputPerMTok: 2.00, CachedInputPerMTok: 0.50, OutputPerMTok: 8.00},
		"o3-mini":                {InputPerMTok: 1.10, CachedInputPerMTok: 0.55, OutputPerMTok: 4.40},
		"o4-mini":                {InputPerMTok: 1.10, CachedInputPerMTok: 0.275, OutputPerMTok: 4.40},
		"text-embedding-3-small": {InputPerMTok: 0.02},
		"text-embedding-3-large": {InputPerMTok: 0.13},
		"text-embedding-ada-002": {InputPerMTok: 0.10},
	})
}

// halfForBatch sets the batch prices of every entry to half its online prices.
func halfForBatch(p Prices) Prices {
	for name, pr := range p {
		pr.BatchInputPerMTok, pr.BatchOutputPerMTok = pr.InputPerMTok/2, pr.OutputPerMTok/2
		pr.AsOf, pr.Source = DefaultPricesAsOf, DefaultPricesSource
		if pr.InputPerMTok == 0 && pr.OutputPerMTok == 0 {
			pr.AsOf, pr.Source = "", "offline model, no charge"
		}
		p[name] = pr
	}
	return p
}

// With returns a copy of p with every entry of over added or replaced.
func (p Prices) With(over Prices) Prices {
	out := make(Prices, len(p)+len(over))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Lookup finds the price of a model: an exact entry, else the longest entry that the name
// starts with followed by "-" (a dated snapshot such as gpt-4o-mini-2024-07-18), after removing
// a router prefix such as "openai/". ok is false when no entry matches.
func (p Prices) Lookup(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
		if pr, ok := p[model]; ok {
			return pr, true
		}
	}
	names := make([]string, 0, len(p))
	for name := range p {
		if strings.HasPrefix(model, name+"-") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return Price{}, false
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) }) // longest first
	return p[names[0]], true
}
