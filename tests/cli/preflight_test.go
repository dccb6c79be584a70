package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// noKey is an environment without an OpenAI key.
var noKey = []string{"OPENAI_API_KEY="}

// hosted points the chat model at OpenAI's API (the test never gets that far).
var hosted = []string{"--set", "llm.provider=openai", "--set", "llm.base_url=https://api.openai.com/v1", "--set", "llm.model=gpt-4o-mini"}

// TestRunSaysWhatItNeeds: a run whose job needs what the machine lacks (the LoCoMo dataset
// without ../shared, an API key, a reachable sink) exits 2 before any work, listing it all, with
// no store created and no LLM request sent; plan lists what it can plan without (MISSING lines,
// exit 0) and refuses an absent input (exit 2); status lists it too.
func TestRunSaysWhatItNeeds(t *testing.T) {
	dir := repoCopy(t, t.TempDir()) // no ../shared beside it
	store := func(name string) string { return filepath.Join(dir, ".backfill", name) }
	noStore := func(t *testing.T, name string) {
		t.Helper()
		if m, _ := filepath.Glob(store(name) + "*"); len(m) > 0 {
			t.Errorf("the refused run left %v", m)
		}
	}
	t.Run("LoCoMo without ../shared", func(t *testing.T) {
		for _, cmd := range []string{"run", "plan"} {
			res := run(t, dir, []string{"LOCOMO="}, cmd, "jobs/examples/locomo.yaml")
			for _, want := range []string{"../shared/datasets/locomo/locomo10.json does not exist", "set LOCOMO to the file's path",
				"the job file says: LoCoMo's data/locomo10.json (github.com/snap-research/locomo"} {
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("%s: stderr lacks %q:\n%s", cmd, want, res.Stderr)
				}
			}
			if res.Code != 2 || res.Stdout != "" {
				t.Errorf("%s: exit %d, want 2 and no summary:\n%s", cmd, res.Code, res.Stdout)
			}
		}
		noStore(t, "locomo.db")
		if res := run(t, dir, []string{"LOCOMO="}, "status", "jobs/examples/locomo.yaml"); res.Code != 1 || !strings.Contains(res.Stderr, "has the job run?") {
			t.Errorf("status after the refused run: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	})
	t.Run("API key", func(t *testing.T) {
		res := run(t, dir, noKey, append([]string{"run", "jobs/examples/demo.yaml", "--checkpoint", store("key.db")}, hosted...)...)
		if res.Code != 2 || !strings.Contains(res.Stderr, "llm.api_key_env: OPENAI_API_KEY is not set") || !strings.Contains(res.Stderr, "export OPENAI_API_KEY=") {
			t.Errorf("run: exit %d, want 2 naming OPENAI_API_KEY:\n%s", res.Code, res.Stderr)
		}
		noStore(t, "key.db")
		res = run(t, dir, noKey, append([]string{"plan", "jobs/examples/demo.yaml", "--checkpoint", store("key.db")}, hosted...)...)
		if res.Code != 0 || !strings.Contains(res.Stdout, "MISSING") || !strings.Contains(res.Stdout, "OPENAI_API_KEY is not set") {
			t.Errorf("plan: exit %d, want 0 and a MISSING line:\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
		noStore(t, "key.db")
		if res := run(t, dir, nil, "run", "jobs/examples/demo.yaml", "--checkpoint", store("demo.db")); res.Code != 0 {
			t.Fatalf("run: exit %d\n%s", res.Code, res.Stderr)
		}
		res = run(t, dir, noKey, append([]string{"status", "jobs/examples/demo.yaml", "--checkpoint", store("demo.db")}, hosted...)...)
		if res.Code != 0 || !strings.Contains(res.Stdout, "MISSING") || !strings.Contains(res.Stdout, "OPENAI_API_KEY is not set") {
			t.Errorf("status: exit %d, want 0 and a MISSING line:\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	})
	t.Run("unreachable sink, loopback model without a key", func(t *testing.T) {
		stub, url, err := harness.StartLLMStub(t.Context(), bin)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = stub.Signal(os.Interrupt)
			_, _ = stub.Wait()
		}()
		sink := fmt.Sprintf("bolt://127.0.0.1:%d", harness.FreePort(t))
		res := run(t, dir, noKey, "run", "jobs/examples/demo.yaml", "--checkpoint", store("sink.db"),
			"--set", "llm.provider=openai", "--set", "llm.base_url="+url, "--set", "llm.model=stub",
			"--set", "sink.kind=neo4j", "--set", "sink.uri="+sink)
		if res.Code != 2 || !strings.Contains(res.Stderr, "sink.uri: cannot connect to the neo4j sink") ||
			!strings.Contains(res.Stderr, "scripts/neo4j.sh start") || strings.Contains(res.Stderr, "api_key_env") {
			t.Errorf("run: exit %d, want 2 naming the sink alone (a loopback model needs no key):\n%s", res.Code, res.Stderr)
		}
		noStore(t, "sink.db")
		if st, err := harness.StubStats(url); err != nil || st.Calls != 0 {
			t.Errorf("the refused run sent %d requests (%v), want none", st.Calls, err)
		}
	})
}
