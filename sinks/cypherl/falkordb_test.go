package cypherl

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/tests/harness"
)

// tricky is text that every layer must carry unchanged: Cypher string escapes, redis-cli
// quoting (backslashes, both quotes, control bytes), ";" and non-ASCII text.
const tricky = "She said \"hi\"; it's 5\\6 \u00e9 \u6771\u4eac\nnext line\ttab \x01\x7f end"

// TestFalkorDBScriptMatchesLoad sends the falkordb-dialect script line by line to the real
// FalkorDB server as inline commands (which the server splits with sdssplitargs, as redis-cli
// does), and requires the same graphs as the loader writes from the same source.
func TestFalkorDBScriptMatchesLoad(t *testing.T) {
	uri := testenv.FalkorDBExclusive(t)
	ctx := t.Context()
	db, err := harness.DialFalkorDB(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src := sinkstest.Sample()
	src.EpisodeList[0].Content = tricky

	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	var script bytes.Buffer
	// Inline commands are limited to 64 KiB: small batches keep every line under it.
	if err := ExportWith(ctx, src, &script, Options{Dialect: cypher.FalkorDB, BatchSize: 2, BatchBytes: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	n := sendInline(t, uri, script.Bytes())
	fromScript, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}

	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := graphdb.Open(ctx, graphdb.Options{Dialect: cypher.FalkorDB, URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	groups, err := src.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(ctx, src, groups, nil); err != nil {
		t.Fatal(err)
	}
	fromLoad, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := harness.DiffLines(fromLoad, fromScript); d != "" {
		t.Errorf("script (%d commands) and loader differ: %s", n, d)
	}
	if len(fromLoad) < 15 {
		t.Errorf("graph too small:\n%s", strings.Join(fromLoad, "\n"))
	}
	rows, err := db.Query(ctx, cypher.GraphName(src.EpisodeList[0].GroupID), fmt.Sprintf("MATCH (e:Episodic {uuid: '%s'}) RETURN e.content", src.EpisodeList[0].UUID))
	if err != nil || len(rows) != 1 || rows[0][0] != tricky {
		t.Errorf("content read back as %q (%v), want %q", rows, err, tricky)
	}
}

// sendInline sends every line of script to the server at uri as an inline command and fails t
// on an error reply; it returns the number of commands.
func sendInline(t *testing.T, uri string, script []byte) int {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	sc := bufio.NewScanner(bytes.NewReader(script))
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if len(line) >= 64<<10 {
			t.Fatalf("line %d is %d bytes, over the inline limit", n+1, len(line))
		}
		if _, err := conn.Write([]byte(line + "\r\n")); err != nil {
			t.Fatal(err)
		}
		if err := readReply(r); err != nil {
			t.Fatalf("line %d (%.100s): %v", n+1, line, err)
		}
		n++
	}
	return n
}

// readReply reads one RESP2 reply and returns an error reply as an error; FalkorDB's "already
// indexed" is not one here (the graphs are new).
func readReply(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimRight(line, "\r\n")
	switch line[0] {
	case '-':
		return fmt.Errorf("error reply: %s", line[1:])
	case '+', ':':
		return nil
	case '$':
		size, _ := strconv.Atoi(line[1:])
		if size >= 0 {
			_, err = r.Discard(size + 2)
		}
		return err
	case '*':
		count, _ := strconv.Atoi(line[1:])
		for range max(count, 0) {
			if err := readReply(r); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unexpected reply %q", line)
}
