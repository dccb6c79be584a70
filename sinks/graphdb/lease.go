package graphdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// ErrLeaseHeld is wrapped by the error of a load that could not take the lease of a group
// another load holds.
var ErrLeaseHeld = errors.New("groups held by another load")

// leases are the group leases one Load holds (cypher.TakeLeases): taken a window of groups at a
// time before they are written, renewed every third of Options.LeaseTTL while the load runs,
// released once their chunk is verified, and all released (best effort) when Load returns.
type leases struct {
	l      *Loader
	holder string // a random token of this load
	host   string
	pid    int

	mu   sync.Mutex
	held map[string]string // group → graph
	lost error             // a lease that expired and went to another load

	stop chan struct{}
	done chan struct{}
}

// startLeases returns the lease keeper of one Load and starts its renewals.
func (l *Loader) startLeases() *leases {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	host, _ := os.Hostname()
	ls := &leases{l: l, holder: hex.EncodeToString(b), host: host, pid: os.Getpid(), held: map[string]string{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go ls.renewLoop()
	return ls
}

// holderParams are the parameters that name this load in a lease.
func (ls *leases) holderParams(groups []string) map[string]any {
	return map[string]any{"groups": groups, "holder": ls.holder, "host": ls.host, "pid": int64(ls.pid),
		"job": ls.l.o.Job, "ttl": ls.l.o.LeaseTTL.Milliseconds()}
}

// conflict is a group another load holds.
type conflict struct {
	group, holder string
	host, job     string
	pid           int64
	since         time.Time
	left          time.Duration
}

func (c conflict) String() string {
	return fmt.Sprintf("group %s by host %s, pid %d, job %q since %s (its lease ends in %s unless renewed)",
		c.group, c.host, c.pid, c.job, c.since.UTC().Format(time.RFC3339), c.left.Round(time.Second))
}

// take takes the leases of groups, all or none: when another load holds one of them, the ones
// just taken are released and take tries again every second until Options.LeaseWait has passed
// (so two loads never hold parts of each other's groups while they wait), then fails naming the
// holders.
func (ls *leases) take(ctx context.Context, groups []string) error {
	start := time.Now()
	defer func() { ls.l.res.LeaseWaitSeconds += time.Since(start).Seconds() }()
	deadline := start.Add(ls.l.o.LeaseWait)
	for {
		taken, conflicts, err := ls.try(ctx, groups)
		if err != nil {
			return err
		}
		if len(conflicts) == 0 {
			return nil
		}
		ls.release(ctx, taken)
		if n, err := ls.expireDead(ctx, conflicts); err != nil || n > 0 {
			if err != nil {
				return err
			}
			continue // their holders are gone: take them now
		}
		if !time.Now().Add(time.Second).Before(deadline) {
			var b strings.Builder
			for i, c := range conflicts {
				if i == 3 {
					fmt.Fprintf(&b, "; and %d more", len(conflicts)-3)
					break
				}
				if i > 0 {
					b.WriteString("; ")
				}
				b.WriteString(c.String())
			}
			return fmt.Errorf("%w: %s; waited %s (sink.lease_wait_seconds): run again once it is done, or wait longer",
				ErrLeaseHeld, b.String(), time.Since(start).Round(time.Second))
		}
		ls.l.o.Log.Info("waiting for groups another load holds", "first", conflicts[0].String(), "groups", len(conflicts))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// expireDead ends the leases of conflicts whose holder ran on this host and whose process is
// gone (a killed load), so they need not wait for their TTL; it returns how many it ended.
func (ls *leases) expireDead(ctx context.Context, conflicts []conflict) (int, error) {
	var dead []conflict
	for _, c := range conflicts {
		if c.host == ls.host && c.pid > 0 && int(c.pid) != ls.pid && !processAlive(int(c.pid)) {
			dead = append(dead, c)
		}
	}
	if len(dead) == 0 {
		return 0, nil
	}
	byGroup := map[string]conflict{}
	groups := make([]string, 0, len(dead))
	for _, c := range dead {
		byGroup[c.group] = c
		groups = append(groups, c.group)
	}
	q := cypher.ExpireLeases(ls.l.o.Dialect)
	for _, gg := range ls.l.byGraph(groups) {
		rows := make([]any, 0, len(gg.groups))
		for _, g := range gg.groups {
			rows = append(rows, map[string]any{"group": g, "holder": byGroup[g].holder})
		}
		if err := ls.l.retrier().do(ctx, func(ctx context.Context) error {
			return ls.l.ex.exec(ctx, gg.graph, cypher.Statement{Cypher: q}, map[string]any{"leases": rows})
		}); err != nil {
			return 0, fmt.Errorf("ending the leases of a load that is gone: %w", err)
		}
	}
	ls.l.o.Log.Warn("took over the leases of a load whose process is gone", "first", dead[0].String(), "groups", len(dead))
	return len(dead), nil
}

// try takes the free leases of groups, graph by graph; it returns the groups taken and the
// other loads' leases it met.
func (ls *leases) try(ctx context.Context, groups []string) (taken []string, conflicts []conflict, err error) {
	q := cypher.TakeLeases(ls.l.o.Dialect)
	for _, gg := range ls.l.byGraph(groups) {
		var got []string
		var met []conflict
		err := ls.l.retrier().do(ctx, func(ctx context.Context) error {
			got, met = nil, nil
			return ls.l.ex.queryWrite(ctx, gg.graph, q, ls.holderParams(gg.groups), func(v []any) error {
				g, _ := v[0].(string)
				if free, _ := v[1].(bool); free {
					got = append(got, g)
					return nil
				}
				c := conflict{group: g}
				c.holder, _ = v[2].(string)
				c.host, _ = v[3].(string)
				c.pid, _ = v[4].(int64)
				c.job, _ = v[5].(string)
				if ms, ok := v[6].(int64); ok {
					c.since = time.UnixMilli(ms)
				}
				if ms, ok := v[7].(int64); ok {
					c.left = time.Duration(ms) * time.Millisecond
				}
				met = append(met, c)
				return nil
			})
		})
		if err != nil {
			ls.release(ctx, taken)
			return nil, nil, fmt.Errorf("taking the leases of %d groups: %w", len(gg.groups), err)
		}
		ls.mu.Lock()
		for _, g := range got {
			ls.held[g] = gg.graph
		}
		ls.mu.Unlock()
		taken = append(taken, got...)
		conflicts = append(conflicts, met...)
	}
	return taken, conflicts, nil
}

// release deletes this load's leases of groups (best effort: a lease left behind expires).
func (ls *leases) release(ctx context.Context, groups []string) {
	if len(groups) == 0 {
		return
	}
	ls.mu.Lock()
	for _, g := range groups {
		delete(ls.held, g)
	}
	ls.mu.Unlock()
	q := cypher.ReleaseLeases(ls.l.o.Dialect)
	for _, gg := range ls.l.byGraph(groups) {
		err := ls.l.retrier().do(ctx, func(ctx context.Context) error {
			return ls.l.ex.exec(ctx, gg.graph, cypher.Statement{Cypher: q}, ls.holderParams(gg.groups))
		})
		if err != nil {
			ls.l.o.Log.Warn("releasing leases; they expire by themselves", "groups", len(gg.groups), "err", err)
		}
	}
}

// renewLoop renews the held leases every third of the TTL until close.
func (ls *leases) renewLoop() {
	defer close(ls.done)
	t := time.NewTicker(max(ls.l.o.LeaseTTL/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ls.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), ls.l.o.LeaseTTL/3+time.Second)
			ls.renew(ctx)
			cancel()
		}
	}
}

// renew extends every held lease; a lease that is gone (it expired and another load took it)
// is recorded as lost, which fails the load before it records its groups.
func (ls *leases) renew(ctx context.Context) {
	groups := ls.heldGroups()
	q := cypher.RenewLeases(ls.l.o.Dialect)
	for _, gg := range ls.l.byGraph(groups) {
		renewed := map[string]bool{}
		err := ls.l.ex.queryWrite(ctx, gg.graph, q, ls.holderParams(gg.groups), func(v []any) error {
			g, _ := v[0].(string)
			renewed[g] = true
			return nil
		})
		if err != nil {
			ls.l.o.Log.Warn("renewing leases", "groups", len(gg.groups), "err", err)
			continue
		}
		ls.mu.Lock()
		for _, g := range gg.groups {
			if _, still := ls.held[g]; still && !renewed[g] && ls.lost == nil {
				ls.lost = fmt.Errorf("the lease of group %s expired and another load took it (a pause longer than sink.lease_seconds?): "+
					"its writes may mix with this load's; run again", g)
			}
		}
		ls.mu.Unlock()
	}
}

// heldGroups lists the groups whose lease this load holds, sorted.
func (ls *leases) heldGroups() []string {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return slices.Sorted(maps.Keys(ls.held))
}

// check returns the error of a lost lease, if any.
func (ls *leases) check() error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.lost
}

// close stops the renewals and releases every lease still held.
func (ls *leases) close() {
	close(ls.stop)
	<-ls.done
	groups := ls.heldGroups()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ls.release(ctx, groups)
}
