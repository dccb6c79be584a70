package memgraph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// fakeDB is an in-memory executor that understands exactly the statements the loader sends,
// keeps nodes and relationships by uuid, and records a transcript of every call.
type fakeDB struct {
	nodes map[string]*fakeNode
	edges map[string]*fakeEdge
	log   []string
	// fail, when set, decides whether a call fails and with which error (nil: it runs).
	fail func(cypher string) error
}

type fakeNode struct {
	labels []string
	group  string
}

type fakeEdge struct {
	typ, group, from, to string
}

func newFakeDB() *fakeDB {
	return &fakeDB{nodes: map[string]*fakeNode{}, edges: map[string]*fakeEdge{}}
}

func fakeLoader(d cypher.Dialect, o Options, db *fakeDB) *Loader {
	o.Dialect = d
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := o.defaults(); err != nil {
		panic(err)
	}
	return &Loader{o: o, ex: db}
}

var (
	reMergeNode = regexp.MustCompile(`^UNWIND \$rows AS row MERGE \(n:(\w+) \{uuid: row\.uuid\}\) SET n = row\.props(?: SET n:([\w:]+))?$`)
	reMergeEdge = regexp.MustCompile(`^UNWIND \$rows AS row MATCH \(a:(\w+) \{uuid: row\.source\}\) MATCH \(b:(\w+) \{uuid: row\.target\}\) MERGE \(a\)-\[r:(\w+) \{uuid: row\.uuid\}\]->\(b\) SET r = row\.props$`)
	reDelNode   = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(n:(\w+) \{uuid: id\}\) DETACH DELETE n$`)
	reDelEdge   = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(\)-\[r:(\w+) \{uuid: id\}\]->\(\) DELETE r$`)
	reRemove    = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(n:(\w+) \{uuid: id\}\) REMOVE n:(\w+)$`)
	reListNode  = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(n:(\w+) \{group_id: g\}\) RETURN n\.uuid AS uuid, labels\(n\) AS labels$`)
	reListEdge  = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(\)-\[r:(\w+) \{group_id: g\}\]->\(\) RETURN r\.uuid AS uuid$`)
	reCountNode = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(n:([\w:]+) \{group_id: g\}\) RETURN count\(n\) AS n$`)
	reCountEdge = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(\)-\[r:(\w+) \{group_id: g\}\]->\(\) RETURN count\(r\) AS n$`)
)

func (f *fakeDB) exec(_ context.Context, st cypher.Statement, params map[string]any) error {
	mode := "tx  "
	if st.AutoCommit {
		mode = "auto"
	}
	n := 0
	if rows, ok := params["rows"].([]any); ok {
		n = len(rows)
	} else if ids, ok := params["uuids"].([]string); ok {
		n = len(ids)
	}
	f.log = append(f.log, fmt.Sprintf("%s %s [%d]", mode, st.Cypher, n))
	if f.fail != nil {
		if err := f.fail(st.Cypher); err != nil {
			f.log = append(f.log, "  failed: "+err.Error())
			return err
		}
	}
	c := st.Cypher
	switch {
	case reMergeNode.MatchString(c):
		m := reMergeNode.FindStringSubmatch(c)
		labels := []string{m[1]}
		if m[2] != "" {
			labels = append(labels, strings.Split(m[2], ":")...)
		}
		for _, r := range params["rows"].([]any) {
			row := r.(cypher.Row)
			nd := f.nodes[row[cypher.KeyUUID].(string)]
			if nd == nil {
				nd = &fakeNode{}
				f.nodes[row[cypher.KeyUUID].(string)] = nd
			}
			nd.group = row[cypher.KeyProps].(cypher.Row)["group_id"].(string)
			for _, l := range labels {
				if !slices.Contains(nd.labels, l) {
					nd.labels = append(nd.labels, l)
				}
			}
			slices.Sort(nd.labels)
		}
	case reMergeEdge.MatchString(c):
		m := reMergeEdge.FindStringSubmatch(c)
		for _, r := range params["rows"].([]any) {
			row := r.(cypher.Row)
			a, b := f.nodes[row[cypher.KeySource].(string)], f.nodes[row[cypher.KeyTarget].(string)]
			if a == nil || b == nil || !slices.Contains(a.labels, m[1]) || !slices.Contains(b.labels, m[2]) {
				continue // MATCH found no endpoint: nothing written
			}
			f.edges[row[cypher.KeyUUID].(string)] = &fakeEdge{typ: m[3], group: row[cypher.KeyProps].(cypher.Row)["group_id"].(string),
				from: row[cypher.KeySource].(string), to: row[cypher.KeyTarget].(string)}
		}
	case reDelNode.MatchString(c):
		for _, id := range params["uuids"].([]string) {
			delete(f.nodes, id)
			for eid, e := range f.edges {
				if e.from == id || e.to == id {
					delete(f.edges, eid)
				}
			}
		}
	case reDelEdge.MatchString(c):
		for _, id := range params["uuids"].([]string) {
			delete(f.edges, id)
		}
	case reRemove.MatchString(c):
		label := reRemove.FindStringSubmatch(c)[2]
		for _, id := range params["uuids"].([]string) {
			if nd := f.nodes[id]; nd != nil {
				nd.labels = slices.DeleteFunc(nd.labels, func(l string) bool { return l == label })
			}
		}
	case strings.HasPrefix(c, "UNWIND"):
		return fmt.Errorf("fakeDB: unknown statement %q", c)
	}
	return nil
}

func (f *fakeDB) query(_ context.Context, cypher string, params map[string]any, fn func([]any) error) error {
	f.log = append(f.log, "read "+cypher)
	if f.fail != nil {
		if err := f.fail(cypher); err != nil {
			f.log = append(f.log, "  failed: "+err.Error())
			return err
		}
	}
	groups := params["groups"].([]string)
	var recs [][]any
	switch {
	case reListNode.MatchString(cypher):
		label := reListNode.FindStringSubmatch(cypher)[1]
		for id, nd := range f.nodes {
			if slices.Contains(groups, nd.group) && slices.Contains(nd.labels, label) {
				ls := make([]any, len(nd.labels))
				for i, l := range nd.labels {
					ls[i] = l
				}
				recs = append(recs, []any{id, ls})
			}
		}
	case reListEdge.MatchString(cypher):
		typ := reListEdge.FindStringSubmatch(cypher)[1]
		for id, e := range f.edges {
			if slices.Contains(groups, e.group) && e.typ == typ {
				recs = append(recs, []any{id})
			}
		}
	case reCountNode.MatchString(cypher):
		want := strings.Split(reCountNode.FindStringSubmatch(cypher)[1], ":")
		var n int64
		for _, nd := range f.nodes {
			if slices.Contains(groups, nd.group) && !slices.ContainsFunc(want, func(l string) bool { return !slices.Contains(nd.labels, l) }) {
				n++
			}
		}
		recs = append(recs, []any{n})
	case reCountEdge.MatchString(cypher):
		typ := reCountEdge.FindStringSubmatch(cypher)[1]
		var n int64
		for _, e := range f.edges {
			if slices.Contains(groups, e.group) && e.typ == typ {
				n++
			}
		}
		recs = append(recs, []any{n})
	default:
		return fmt.Errorf("fakeDB: unknown query %q", cypher)
	}
	slices.SortFunc(recs, func(a, b []any) int { return strings.Compare(fmt.Sprint(a[0]), fmt.Sprint(b[0])) })
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeDB) close(context.Context) error { return nil }

// state renders the fake graph as sorted lines.
func (f *fakeDB) state() string {
	var lines []string
	for id, nd := range f.nodes {
		lines = append(lines, fmt.Sprintf("node %s %s %v", nd.group, id, nd.labels))
	}
	for id, e := range f.edges {
		lines = append(lines, fmt.Sprintf("edge %s %s %s %s->%s", e.group, id, e.typ, e.from, e.to))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// connErr is a connectivity error the driver would report for a dropped connection.
func connErr() error { return &neo4j.ConnectivityError{Inner: errors.New("connection reset by peer")} }
