package recipes

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// guideRecipe is the Browser recipe of the getting-started guide, which marks it as run by
// TestNeo4jBrowserRecipe: the test runs these lines, its own checkpoint given to the run.
const guideRecipe = "<!-- recipe: run by TestNeo4jBrowserRecipe (tests/recipes), on free ports -->\n```sh\n" +
	"eval \"$(scripts/neo4j.sh browser)\"\nbin/backfill run jobs/examples/demo.yaml $BACKFILL_NEO4J_FLAGS\n"

// TestNeo4jBrowserRecipe: the recipe `scripts/neo4j.sh browser` prints loads a graph and shows
// it (see the package doc).
func TestNeo4jBrowserRecipe(t *testing.T) {
	if b, err := os.ReadFile(filepath.Join(root, "docs", "getting-started.md")); err != nil || !strings.Contains(string(b), guideRecipe) {
		t.Errorf("docs/getting-started.md lacks the recipe this test runs (%v); update one or the other:\n%s", err, guideRecipe)
	}
	testenv.Neo4j(t) // the integration servers' policy: the launcher jar is built where they run
	bolt, httpPort := harness.FreePort(t), harness.FreePort(t)
	env := []string{"BACKFILL_CACHE_DIR=" + t.TempDir(), fmt.Sprintf("BACKFILL_NEO4J_PORT=%d", bolt),
		fmt.Sprintf("BACKFILL_NEO4J_HTTP_PORT=%d", httpPort), "BACKFILL_NEO4J_HEAP=512m"}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if res, err := harness.Run(ctx, "scripts/neo4j.sh", []string{"stop"}, harness.Options{Dir: root, Env: env}); err != nil || res.Code != 0 {
			t.Errorf("scripts/neo4j.sh stop: %v %+v", err, res)
		}
	})
	cp := filepath.Join(t.TempDir(), "demo.db")
	res := shell(t, append(env, "CP="+cp), `
eval "$(scripts/neo4j.sh browser)"
backfill run jobs/examples/demo.yaml --checkpoint "$CP" $BACKFILL_NEO4J_FLAGS >/dev/null
printf 'URI=%s\nFLAGS=%s\nBROWSER=%s\n' "$BACKFILL_NEO4J_URI" "$BACKFILL_NEO4J_FLAGS" "$BACKFILL_NEO4J_BROWSER"
`)
	v := vars(res.Stdout)
	uri := fmt.Sprintf("bolt://127.0.0.1:%d", bolt)
	if v["URI"] != uri || v["FLAGS"] != "--set sink.kind=neo4j --set sink.uri="+uri {
		t.Fatalf("the script exported %q, want the URI %s and its --set flags", res.Stdout, uri)
	}
	browser := v["BROWSER"]
	if want := fmt.Sprintf("http://127.0.0.1:%d/browser/?dbms=%s&preselectAuthMethod=NO_AUTH", httpPort, uri); browser != want {
		t.Fatalf("BACKFILL_NEO4J_BROWSER=%q, want %q", browser, want)
	}
	if !strings.Contains(res.Stderr, "Neo4j Browser: http://127.0.0.1:") {
		t.Errorf("the script did not say where the Browser is:\n%s", res.Stderr)
	}

	t.Run("browser", func(t *testing.T) {
		page := get(t, browser)
		if !strings.Contains(page, "<title>Neo4j Browser</title>") {
			t.Fatalf("%s is not Neo4j Browser:\n%.500s", browser, page)
		}
		scripts := regexp.MustCompile(`<script[^>]* src="([^"]+)"`).FindAllStringSubmatch(page, -1)
		if len(scripts) == 0 {
			t.Fatalf("the Browser page names no script:\n%.2000s", page)
		}
		base, _ := url.Parse(browser)
		for _, s := range scripts {
			ref, err := base.Parse(s[1])
			if err != nil {
				t.Fatal(err)
			}
			get(t, ref.String())
		}
		if status := websocketUpgrade(t, bolt); !strings.Contains(status, " 101 ") {
			t.Errorf("the Bolt port answered the Browser's WebSocket upgrade with %q, want 101 Switching Protocols", status)
		}
	})

	t.Run("graph over HTTP", func(t *testing.T) {
		store := harness.OpenStore(t, cp)
		c, err := store.Count(t.Context())
		store.Close()
		if err != nil {
			t.Fatal(err)
		}
		api := fmt.Sprintf("http://127.0.0.1:%d/db/neo4j/query/v2", httpPort)
		for q, want := range map[string]int{
			"MATCH (e:Entity) RETURN count(e)":                   c.Entities,
			"MATCH (:Entity)-[r]->(:Entity) RETURN count(r)":     c.Facts,
			"MATCH (e:Episodic) RETURN count(e)":                 c.Episodes,
			"MATCH (:Episodic)-[m:MENTIONS]->() RETURN count(m)": c.Mentions,
		} {
			if got := queryCount(t, api, q); got != want || want == 0 {
				t.Errorf("%s over HTTP: %d, the checkpoint holds %d", q, got, want)
			}
		}
	})
}

// get fetches u and fails t unless it answers 200.
func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return string(b)
}

// queryCount runs a count query through Neo4j's HTTP query API.
func queryCount(t *testing.T, api, q string) int {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"statement": q})
	resp, err := http.Post(api, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Values [][]int `json:"values"`
		} `json:"data"`
		Errors []map[string]any `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("POST %s %q: %s %v", api, q, resp.Status, err)
	}
	if len(out.Errors) > 0 || len(out.Data.Values) != 1 || len(out.Data.Values[0]) != 1 {
		t.Fatalf("POST %s %q: %+v", api, q, out)
	}
	return out.Data.Values[0][0]
}

// websocketUpgrade asks the Bolt port for a WebSocket, as Neo4j Browser connects, and returns
// the status line of the answer.
func websocketUpgrade(t *testing.T, port int) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", port)
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the upgrade's answer: %v", err)
	}
	return strings.TrimSpace(status)
}
