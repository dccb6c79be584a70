package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/providers/stub"
)

// demoArgs are the arguments that run the bundled demo job against base, with its store in
// dir. Tests using them first move to the repository root, where the job's paths point.
func demoArgs(base, dir string, sets ...string) []string {
	args := []string{"jobs/examples/demo.yaml", "--checkpoint", filepath.Join(dir, "demo.db"),
		"--set", "llm.provider=openai", "--set", "llm.base_url=" + base, "--set", "llm.model=gpt-4o-mini"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	return args
}

// TestRunBudgetExit: a tiny budget exits 3; a higher one finishes with 0 and the stub answers
// nothing twice.
func TestRunBudgetExit(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	s := stub.New(stub.Options{})
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir := t.TempDir()
	ctx := context.Background()
	if code, _ := backfill(ctx, append([]string{"run"}, demoArgs(srv.URL+"/v1", dir, "limits.max_cost_usd=0.002")...)...); code != exitPartial {
		t.Fatalf("tiny budget: exit %d, want %d", code, exitPartial)
	}
	if code, _ := backfill(ctx, append([]string{"run"}, demoArgs(srv.URL+"/v1", dir, "limits.max_cost_usd=10")...)...); code != exitOK {
		t.Fatalf("raised budget: exit %d, want 0", code)
	}
	if st := s.Stats(); st.Repeated != 0 || st.Answered == 0 {
		t.Fatalf("stub %+v", st)
	}
}

func TestPlanCommand(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	out := filepath.Join(dir, "plan.json")
	// No server: plan must not call one.
	args := append(demoArgs("http://127.0.0.1:1/v1", dir), "--json", out)
	if code, _ := backfill(t.Context(), append([]string{"plan"}, args...)...); code != exitOK {
		t.Fatalf("plan: exit %d", code)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"episodes": 56`) {
		t.Fatalf("plan JSON: %v\n%s", err, b)
	}
}

func TestStubOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		o    stubOptions
		want string
	}{
		{stubOptions{}, ""},
		{stubOptions{faults: "429,drop"}, ""},
		{stubOptions{faults: "429,boom"}, `unknown kind "boom"`},
	} {
		err := tt.o.validate()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.o, err, tt.want)
		}
	}
}
