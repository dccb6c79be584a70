package pipeline

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/pacing"
)

func TestValidateCost(t *testing.T) {
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"limits.max_cost_usd=1"}, ""}, // offline models are priced at 0
		{[]string{"limits.max_cost_usd=-1"}, "negative"},
		{[]string{"limits.max_cost_usd=1", "llm.provider=openai", "llm.base_url=http://x", "llm.model=mystery"}, `needs a price for llm.model "mystery"`},
		{[]string{"limits.max_cost_usd=1", "llm.provider=openai", "llm.base_url=http://x", "llm.model=mystery",
			"llm.prices.mystery.input_per_mtok=1", "llm.prices.mystery.output_per_mtok=2"}, ""},
		{[]string{"llm.prices.x.input_per_mtok=-1"}, "is negative"},
		{[]string{"llm.prices.x.input_per_mtok=1", "llm.prices.x.bogus=2"}, "bogus"},
	} {
		_, err := loadDemo(t, tt.sets...)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v: error %v, want %q", tt.sets, err, tt.want)
		}
	}
}

// TestPricesAreSourced: a built-in price carries its date and source, a job's entry its own
// as_of and source, or the job's llm.prices as its source when it names none.
func TestPricesAreSourced(t *testing.T) {
	j, err := loadDemo(t, "llm.prices.mine.input_per_mtok=1", "llm.prices.dated.input_per_mtok=2",
		"llm.prices.dated.as_of=2026-01-02", "llm.prices.dated.source=https://example.com/prices")
	if err != nil {
		t.Fatal(err)
	}
	prices := j.Prices()
	for model, want := range map[string][2]string{
		"gpt-4o-mini": {pacing.DefaultPricesAsOf, pacing.DefaultPricesSource},
		"mine":        {"", "the job's llm.prices"},
		"dated":       {"2026-01-02", "https://example.com/prices"},
	} {
		p, ok := prices.Lookup(model)
		if !ok || p.AsOf != want[0] || p.Source != want[1] {
			t.Errorf("%s: %+v (found %v), want as of %q from %q", model, p, ok, want[0], want[1])
		}
	}
}
