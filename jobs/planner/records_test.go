package planner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestPlanTickets: plan shows the tokens per record before and after pruning and how many
// records skip the LLM: in the ticket log, every record but those that open a ticket (new
// description) or add a comment (new comment text).
func TestPlanTickets(t *testing.T) {
	j := exampleJob(t, "tickets")
	p, err := Make(context.Background(), j, Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(j.Sources[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Count(string(raw), `"action":"opened"`) + strings.Count(string(raw), `"action":"created"`)
	r := p.Records
	if r == nil || r.Records != 46 || r.SkipLLM != 46-text || r.TokensAfter*10 > r.TokensBefore {
		t.Fatalf("plan records %+v; want %d of 46 to skip the LLM and a tenth of the tokens", r, 46-text)
	}
	var out strings.Builder
	p.WriteTable(&out)
	want := fmt.Sprintf("json records     46 (46 pruned): ~%d tokens per record before pruning, ~%d after; %d skip the LLM",
		r.TokensBefore/46, r.TokensAfter/46, 46-text)
	if !strings.Contains(out.String(), want) {
		t.Errorf("plan table lacks %q:\n%s", want, out.String())
	}
}
