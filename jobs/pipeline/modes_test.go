package pipeline

import (
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/batch"
)

func TestValidateModes(t *testing.T) {
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"llm.mode=batch"}, "batch needs provider openai"},
		{[]string{"embedder.mode=batch"}, "embedder.mode: batch needs provider openai"},
		{[]string{"llm.mode=later"}, `"later" is not online or batch`},
		{[]string{"llm.provider=openai", "llm.base_url=http://x", "llm.model=m", "llm.mode=batch", "llm.cache=off"}, "needs llm.cache on"},
		{[]string{"llm.provider=openai", "llm.base_url=http://x", "llm.model=m", "llm.mode=batch", "llm.batch.max_requests=-1"}, "negative"},
		{[]string{"llm.provider=openai", "llm.base_url=http://x", "llm.model=m", "llm.mode=batch", "llm.batch.max_retries=0"}, ""},
	} {
		_, err := loadDemo(t, tt.sets...)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v: %v, want %q", tt.sets, err, tt.want)
		}
	}
	j, err := loadDemo(t)
	if err != nil {
		t.Fatal(err)
	}
	if j.LLM.Mode != ModeOnline || j.Embedder.Mode != ModeOnline || j.LLM.Batch.MaxRequests != batch.DefaultMaxRequests ||
		*j.LLM.Batch.MaxRetries != batch.DefaultMaxRetries || j.LLM.Batch.PollSeconds != 30 {
		t.Fatalf("defaults %+v %+v", j.LLM.Mode, j.LLM.Batch)
	}
}
