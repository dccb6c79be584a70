package pipeline

import (
	"strings"
	"testing"
)

func TestValidateExtractAndResolveKeys(t *testing.T) {
	tests := []struct {
		set     string
		wantErr string
	}{
		{"stages.extract.mode=combined", ""},
		{"stages.extract.mode=two_call", ""},
		{"stages.extract.mode=three_calls", "stages.extract.mode"},
		{"stages.extract.chitchat=ask", ""},
		{"stages.extract.chitchat=never", "stages.extract.chitchat"},
		{"stages.extract.context_tokens=100000", ""},
		{"stages.extract.context_tokens=-1", "stages.extract.context_tokens"},
		{"stages.extract.context_tokens=2000000", "stages.extract.context_tokens"},
		{"stages.resolve.grey_threshold=1.5", "stages.resolve.grey_threshold"},
		{"stages.resolve.embedding_threshold=-0.1", "stages.resolve.embedding_threshold"},
		{"stages.resolve.batch_size=-1", "stages.resolve"},
		{"stages.resolve.llm=off", ""},
		{"stages.resolve.llm=maybe", "stages.resolve.llm"},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			j, err := loadDemo(t, tt.set)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if x := j.Stages.Extract; x.Mode == "" || x.AskChitchat == (tt.set != "stages.extract.chitchat=ask") || x.ContextTokens == 0 ||
					j.Stages.Resolve.NoLLM != (tt.set == "stages.resolve.llm=off") {
					t.Errorf("defaults not filled: %+v", j.Stages)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one about %s", err, tt.wantErr)
			}
		})
	}
}
