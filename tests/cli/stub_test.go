package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// stubRecipe returns the lines of the docs' llm-stub recipe: the block marked as run by
// TestLLMStubRecipe, in whichever page holds it.
func stubRecipe(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, f := range docFiles(t) {
		for _, r := range pageRecipes(t, f) {
			if strings.HasPrefix(r.Skip, "run by TestLLMStubRecipe") {
				lines = append(lines, r.Cmd)
			}
		}
	}
	if len(lines) == 0 {
		t.Fatal("no page of the docs has a block marked <!-- recipe: run by TestLLMStubRecipe … -->")
	}
	return lines
}

// TestLLMStubRecipe runs the docs' llm-stub recipe (docs/local-models.md) as written (in a copy of the repository
// files it needs, on a free port instead of 8089): the stub starts and prints the --set flags
// the recipe uses, the demo runs through it with exit 0 (warning once that the model "stub" of
// both clients has no price), and the stub answered its calls.
func TestLLMStubRecipe(t *testing.T) {
	lines := stubRecipe(t)
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "bin/backfill llm-stub &") ||
		!strings.HasPrefix(lines[1], "bin/backfill run ") || !strings.HasPrefix(lines[2], "curl -s http://127.0.0.1:8089/stats") {
		t.Fatalf("the recipe changed shape; update this test:\n%s", strings.Join(lines, "\n"))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	dir := repoCopy(t, t.TempDir())
	stub, err := harness.Start(t.Context(), bin, []string{"llm-stub", "--addr", "127.0.0.1:" + port}, harness.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stub.Signal(os.Interrupt)
		if res, err := stub.Wait(); err != nil || res.Code != 0 {
			t.Errorf("llm-stub after SIGINT: exit %d (%v)\n%s", res.Code, err, res.Stderr)
		}
	}()
	printed, ok := stub.WaitLine(t.Context(), "--set llm.provider=openai")
	if !ok {
		t.Fatal("llm-stub printed no --set flags")
	}
	runLine := strings.ReplaceAll(lines[1], "8089", port)
	if !strings.Contains(runLine, strings.TrimSpace(printed)) {
		t.Errorf("the recipe's run line does not use the flags the stub prints:\n%s\n%s", runLine, printed)
	}
	res := run(t, dir, nil, strings.Fields(strings.TrimPrefix(runLine, "bin/backfill "))...)
	if res.Code != 0 {
		t.Fatalf("%s\nexit %d\n%s", runLine, res.Code, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "model has no price"); n != 1 { // one model "stub" for both
		t.Errorf("%d warnings that the model has no price, want 1:\n%s", n, res.Stderr)
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/stats") // the recipe's curl
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	stats, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var s struct{ Calls, Answered int }
	if err := json.Unmarshal(stats, &s); err != nil || s.Calls == 0 || s.Answered != s.Calls {
		t.Errorf("the stub's /stats after the run: %s (%v)", stats, err)
	}
}
