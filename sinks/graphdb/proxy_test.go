package graphdb

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// dropProxy forwards TCP connections to a Bolt server and, once dropAt bytes have gone from
// clients to the server in all, closes the connection carrying them (once), the way a network
// failure or a server restart would.
type dropProxy struct {
	ln      net.Listener
	target  string
	sent    atomic.Int64
	dropAt  atomic.Int64 // 0: never
	dropped atomic.Bool
	wg      sync.WaitGroup
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *dropProxy) uri() string { return "bolt://" + p.ln.Addr().String() }

func (p *dropProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.wg.Add(2)
		go func() { defer p.wg.Done(); p.pipe(up, c); c.Close(); up.Close() }()
		go func() { defer p.wg.Done(); io.Copy(c, up); c.Close(); up.Close() }()
	}
}

// pipe copies client bytes to the server, dropping the connection when the threshold is crossed.
func (p *dropProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			total := p.sent.Add(int64(n))
			if at := p.dropAt.Load(); at > 0 && total >= at && p.dropped.CompareAndSwap(false, true) {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestNeo4jLoadRetriesDroppedConnection drops the connection in the middle of a load (through a
// proxy) and requires the loader to retry and produce the same graph as an undisturbed load.
func TestNeo4jLoadRetriesDroppedConnection(t *testing.T) {
	uri, drv := neo4jDB(t)
	p := newDropProxy(t, strings.TrimPrefix(uri, "bolt://"))
	load(t, p.uri(), sinkstest.Sample(), Options{BatchSize: 1})
	clean := snapshot(t, uri)
	total := p.sent.Load()
	for _, frac := range []int64{3, 2} {
		t.Run(fmt.Sprintf("dropped after 1/%d of the bytes", frac), func(t *testing.T) {
			clearDB(t, drv)
			p.sent.Store(0)
			p.dropped.Store(false)
			p.dropAt.Store(total / frac)
			res := load(t, p.uri(), sinkstest.Sample(), Options{BatchSize: 1, RetryBase: 1})
			if !p.dropped.Load() || res.Retries == 0 {
				t.Errorf("dropped %v, retries %d: the drop did not hit the load", p.dropped.Load(), res.Retries)
			}
			if got := snapshot(t, uri); got != clean {
				t.Errorf("graph after a dropped connection differs:\n%s\n---\n%s", got, clean)
			}
		})
	}
}
