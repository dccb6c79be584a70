package pipeline

import (
	"strings"
	"testing"
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
