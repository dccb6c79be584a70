package graphdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// fakeDB is an in-memory executor that understands exactly the statements the loader sends,
// keeps nodes and relationships by uuid, and records a transcript of every call.
type fakeDB struct {
	mu    sync.Mutex // the loader's workers call it concurrently
	nodes map[string]*fakeNode
	edges map[string]*fakeEdge
	log   []string
	// fail, when set, decides whether a call fails and with which error (nil: it runs).
	fail func(cypher string) error
	// failAfter, when set, decides whether a write that ran (and committed) reports an error
	// anyway, as a connection lost before the commit's answer does.
	failAfter func(cypher string) error
	// indexStates are the indexes SHOW INDEXES reports not online, with their state.
	indexStates map[string]string
	// leases are the lease nodes by group; now is the fake clock in milliseconds.
	leases map[string]*fakeLease
	now    int64
	// owner is the ownership record the loaders on this database share (fakeLoader).
	owner *MemOwner
}

// fakeNode is a node; copies counts the nodes with its uuid (a CREATE of a uuid that exists
// adds a copy, as a database without a uniqueness constraint would).
type fakeNode struct {
	labels []string
	group  string
	copies int
	props  map[string]any
}

type fakeEdge struct {
	typ, group, from, to string
	copies               int
	props                map[string]any
}

// fakeLease is a lease node (cypher.TakeLeases).
type fakeLease struct {
	holder, host, job string
	pid, since, exp   int64
}

func newFakeDB() *fakeDB {
	return &fakeDB{nodes: map[string]*fakeNode{}, edges: map[string]*fakeEdge{}, leases: map[string]*fakeLease{},
		owner: NewMemOwner()}
}

// withoutLeases is a transcript without the lease statements.
func withoutLeases(log []string) []string {
	return slices.DeleteFunc(slices.Clone(log), func(s string) bool { return strings.Contains(s, "(l:BackfillLease") })
}

// setProps applies a row's props to have as the statement says: "=" replaces them, "+="
// updates them (a nil value removes the key).
func setProps(have map[string]any, op string, props cypher.Row) map[string]any {
	if op == "=" || have == nil {
		have = map[string]any{}
	}
	for k, v := range props {
		if v == nil {
			delete(have, k)
		} else {
			have[k] = v
		}
	}
	return have
}

// fakeLoader is a loader on db; one session unless o says otherwise, so that the transcript
// has one order. Loaders on one db share its ownership record unless o names another.
func fakeLoader(d cypher.Dialect, o Options, db *fakeDB) *Loader {
	o.Dialect = d
	if o.Sessions == 0 {
		o.Sessions = 1
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Owner == nil {
		o.Owner = db.owner
	}
	if err := o.defaults(); err != nil {
		panic(err)
	}
	return &Loader{o: o, ex: db}
}

// embedding matches the clause that sets an embedding, in either dialect.
const embedding = `(?: SET [nr]\.\w+ = row\.embedding| SET [nr]\.\w+ = vecf32\(row\.embedding\)| WITH [nr], row WHERE row\.embedding IS NOT NULL CALL db\.create\.set(?:Node|Relationship)VectorProperty\([nr], '\w+', row\.embedding\))?`

// keepNew matches the part of a cypher.Keep statement that writes only what is missing.
const keepNew = `( ON CREATE SET [nr]\._backfill_new = true WITH [nr], row WHERE [nr]\._backfill_new IS NOT NULL)?`

var (
	reMergeNode  = regexp.MustCompile(`^UNWIND \$rows AS row MERGE \(n:(\w+) \{uuid: row\.uuid\}\)` + keepNew + ` SET n (\+?=) row\.props(?: SET n:([\w:]+))?` + embedding + `$`)
	reCreateNode = regexp.MustCompile(`^UNWIND \$rows AS row CREATE \(n:([\w:]+)\) SET n = row\.props` + embedding + `$`)
	reWriteEdge  = regexp.MustCompile(`^UNWIND \$rows AS row MATCH \(a:(\w+) \{uuid: row\.source\}\) MATCH \(b:(\w+) \{uuid: row\.target\}\) (MERGE|CREATE) \(a\)-\[r:(\w+)(?: \{uuid: row\.uuid\})?\]->\(b\)` + keepNew + ` SET r (\+?=) row\.props` + embedding + `$`)
	reReadProps  = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH (?:\(n:(\w+) \{uuid: id\}\)|\(\)-\[n:(\w+) \{uuid: id\}\]->\(\)) RETURN n\.uuid AS uuid, .* AS props$`)
	reCountByID  = regexp.MustCompile(`^UNWIND \$(u\d+) AS id MATCH (?:\(n:([\w:]+) \{uuid: id\}\)|\(\)-\[r:(\w+) \{uuid: id\}\]->\(\)) RETURN count\([nr]\) AS n$`)
	reDelNode    = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(n:(\w+) \{uuid: id\}\) DETACH DELETE n$`)
	reDelEdge    = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(\)-\[r:(\w+) \{uuid: id\}\]->\(\) DELETE r$`)
	reRemove     = regexp.MustCompile(`^UNWIND \$uuids AS id MATCH \(n:(\w+) \{uuid: id\}\) REMOVE n:(\w+)$`)
	reAwait      = regexp.MustCompile(`^UNWIND \[[\w', ]+\] AS name CALL db\.awaitIndex\(name, 300\)$`)
	reListNode   = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(n:(\w+) \{group_id: g\}\) RETURN n\.uuid AS uuid, labels\(n\) AS labels$`)
	reListEdge   = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(\)-\[r:(\w+) \{group_id: g\}\]->\(\) RETURN r\.uuid AS uuid$`)
	reCountNode  = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(n:([\w:]+) \{group_id: g\}\) RETURN count\(n\) AS n$`)
	reCountEdge  = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(:\w+ \{group_id: g\}\)-\[r:(\w+)\]->\(\) WHERE r\.group_id = g RETURN count\(r\) AS n$`)
	reCountsPart = regexp.MustCompile(`^(.*), (\d+) AS i$`)
	reHeldPart   = regexp.MustCompile(`^UNWIND \$groups AS g MATCH \(n:(\w+) \{group_id: g\}\) RETURN DISTINCT g$`)
)

func (f *fakeDB) encode(row cypher.Row) (any, int, error) { return row, rowBytes(row), nil }

func (f *fakeDB) ping(context.Context) error { return nil }

func (f *fakeDB) exec(_ context.Context, graph string, st cypher.Statement, params map[string]any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.execLocked(graph, st, params)
}

// at prefixes a transcript line with the graph a call ran in, when it names one.
func at(graph string) string {
	if graph == "" {
		return ""
	}
	return "@" + graph + " "
}

func (f *fakeDB) execLocked(graph string, st cypher.Statement, params map[string]any) error {
	mode := at(graph) + "tx  "
	if st.AutoCommit {
		mode = at(graph) + "auto"
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
	if err := f.run(st.Cypher, params); err != nil {
		return err
	}
	if f.failAfter != nil {
		if err := f.failAfter(st.Cypher); err != nil {
			f.log = append(f.log, "  failed after commit: "+err.Error())
			return err
		}
	}
	return nil
}

// queryWrite answers the lease statements (cypher.TakeLeases, cypher.RenewLeases) on the fake
// clock f.now.
func (f *fakeDB) queryWrite(_ context.Context, graph, q string, params map[string]any, fn func([]any) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, at(graph)+"write+read "+q)
	if f.fail != nil {
		if err := f.fail(q); err != nil {
			f.log = append(f.log, "  failed: "+err.Error())
			return err
		}
	}
	holder, _ := params["holder"].(string)
	ttl, _ := params["ttl"].(int64)
	for _, g := range params["groups"].([]string) {
		l := f.leases[g]
		switch {
		case strings.HasPrefix(q, "UNWIND $groups AS g MERGE (l:BackfillLease"):
			if l == nil {
				l = &fakeLease{}
				f.leases[g] = l
			}
			free := l.holder == holder || l.holder == "" || l.exp < f.now
			if free {
				if l.holder != holder {
					l.since = f.now
				}
				l.holder, l.host, l.job, l.exp = holder, params["host"].(string), params["job"].(string), f.now+ttl
				l.pid = params["pid"].(int64)
			}
			if err := fn([]any{g, free, l.holder, l.host, l.pid, l.job, l.since, l.exp - f.now}); err != nil {
				return err
			}
		case strings.Contains(q, "SET l.expires"):
			if l != nil && l.holder == holder {
				l.exp = f.now + ttl
				if err := fn([]any{g}); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("fakeDB: unknown write query %q", q)
		}
	}
	return nil
}

func (f *fakeDB) execAll(_ context.Context, graph string, sts []cypher.Statement) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, fmt.Sprintf("%sbegin %d statements", at(graph), len(sts)))
	for _, st := range sts {
		if err := f.execLocked(graph, st, nil); err != nil {
			return err
		}
	}
	f.log = append(f.log, "commit")
	return nil
}

// run applies a write to the fake graph.
func (f *fakeDB) run(c string, params map[string]any) error {
	rows, _ := params["rows"].([]any)
	switch {
	case reMergeNode.MatchString(c), reCreateNode.MatchString(c):
		create := reCreateNode.MatchString(c)
		var labels []string
		keep, op := false, "="
		if create {
			labels = strings.Split(reCreateNode.FindStringSubmatch(c)[1], ":")
		} else {
			m := reMergeNode.FindStringSubmatch(c)
			labels = []string{m[1]}
			keep, op = m[2] != "", m[3]
			if m[4] != "" {
				labels = append(labels, strings.Split(m[4], ":")...)
			}
		}
		for _, r := range rows {
			row := r.(cypher.Row)
			id := row[cypher.KeyUUID].(string)
			nd := f.nodes[id]
			if nd == nil {
				nd = &fakeNode{}
				f.nodes[id] = nd
			}
			if keep && nd.copies > 0 {
				continue // there already: a Keep write leaves it as it is
			}
			if create || nd.copies == 0 {
				nd.copies++
			}
			nd.props = setProps(nd.props, op, row[cypher.KeyProps].(cypher.Row))
			nd.group = nd.props["group_id"].(string)
			for _, l := range labels {
				if !slices.Contains(nd.labels, l) {
					nd.labels = append(nd.labels, l)
				}
			}
			slices.Sort(nd.labels)
		}
	case reWriteEdge.MatchString(c):
		m := reWriteEdge.FindStringSubmatch(c)
		for _, r := range rows {
			row := r.(cypher.Row)
			a, b := f.nodes[row[cypher.KeySource].(string)], f.nodes[row[cypher.KeyTarget].(string)]
			if a == nil || b == nil || !slices.Contains(a.labels, m[1]) || !slices.Contains(b.labels, m[2]) {
				continue // MATCH found no endpoint: nothing written
			}
			id := row[cypher.KeyUUID].(string)
			e := f.edges[id]
			if e == nil {
				e = &fakeEdge{}
				f.edges[id] = e
			}
			if m[5] != "" && e.copies > 0 {
				continue // there already: a Keep write leaves it as it is
			}
			if m[3] == "CREATE" || e.copies == 0 {
				e.copies++
			}
			e.props = setProps(e.props, m[6], row[cypher.KeyProps].(cypher.Row))
			e.typ, e.group = m[4], e.props["group_id"].(string)
			e.from, e.to = row[cypher.KeySource].(string), row[cypher.KeyTarget].(string)
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
	case reAwait.MatchString(c):
	case strings.Contains(c, "MATCH (l:BackfillLease"):
		for _, g := range params["groups"].([]string) {
			if l := f.leases[g]; l != nil && l.holder == params["holder"] {
				delete(f.leases, g)
			}
		}
	case strings.HasPrefix(c, "UNWIND"):
		return fmt.Errorf("fakeDB: unknown statement %q", c)
	}
	return nil
}

func (f *fakeDB) query(_ context.Context, graph, cypher string, params map[string]any, fn func([]any) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, at(graph)+"read "+cypher)
	if f.fail != nil {
		if err := f.fail(cypher); err != nil {
			f.log = append(f.log, "  failed: "+err.Error())
			return err
		}
	}
	if strings.HasPrefix(cypher, "CALL db.constraints()") {
		return nil
	}
	if m := reReadProps.FindStringSubmatch(cypher); m != nil {
		for _, id := range params["uuids"].([]string) {
			var props map[string]any
			if nd := f.nodes[id]; m[1] != "" && nd != nil && slices.Contains(nd.labels, m[1]) {
				props = nd.props
			} else if e := f.edges[id]; m[2] != "" && e != nil && e.typ == m[2] {
				props = e.props
			}
			if props == nil {
				continue
			}
			var v any = props
			if !strings.Contains(cypher, "properties(n)") { // the [key, value] pairs form
				var pairs []any
				for k, x := range props {
					pairs = append(pairs, []any{k, x})
				}
				v = pairs
			}
			if err := fn([]any{id, v}); err != nil {
				return err
			}
		}
		return nil
	}
	if strings.HasPrefix(cypher, "SHOW INDEXES") {
		for _, name := range params["names"].([]string) {
			if st, ok := f.indexStates[name]; ok {
				if err := fn([]any{name, st, 40.0}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	groups := params["groups"].([]string)
	if strings.Contains(cypher, " UNION ALL ") {
		return f.counts(cypher, groups, params, fn)
	}
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
	case reCountNode.MatchString(cypher), reCountEdge.MatchString(cypher):
		recs = append(recs, []any{f.count(cypher, groups)})
	case strings.Contains(cypher, "RETURN DISTINCT g"):
		held := map[string]bool{}
		for _, part := range strings.Split(cypher, " UNION ") {
			m := reHeldPart.FindStringSubmatch(part)
			if m == nil {
				return fmt.Errorf("fakeDB: unknown query %q", cypher)
			}
			for _, nd := range f.nodes {
				if slices.Contains(groups, nd.group) && slices.Contains(nd.labels, m[1]) {
					held[nd.group] = true
				}
			}
		}
		for g := range held {
			recs = append(recs, []any{g})
		}
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

// counts answers a cypher.CountsQuery: a row (n, i) per part, none for a part that counts 0
// (as Neo4j and Memgraph return no row when i is a grouping key and nothing matched).
func (f *fakeDB) counts(q string, groups []string, params map[string]any, fn func([]any) error) error {
	for _, part := range strings.Split(q, " UNION ALL ") {
		m := reCountsPart.FindStringSubmatch(part)
		if m == nil || !reCountNode.MatchString(m[1]) && !reCountEdge.MatchString(m[1]) && !reCountByID.MatchString(m[1]) {
			return fmt.Errorf("fakeDB: unknown count %q", part)
		}
		i, _ := strconv.ParseInt(m[2], 10, 64)
		n := int64(0)
		if b := reCountByID.FindStringSubmatch(m[1]); b != nil {
			ids, _ := params[b[1]].([]string)
			for _, id := range ids {
				if nd := f.nodes[id]; b[2] != "" && nd != nil &&
					!slices.ContainsFunc(strings.Split(b[2], ":"), func(l string) bool { return !slices.Contains(nd.labels, l) }) {
					n += int64(nd.copies)
				} else if e := f.edges[id]; b[3] != "" && e != nil && e.typ == b[3] {
					n += int64(e.copies)
				}
			}
		} else {
			n = f.count(m[1], groups)
		}
		if n > 0 {
			if err := fn([]any{n, i}); err != nil {
				return err
			}
		}
	}
	return nil
}

// count answers one count statement (cypher.CountNodes, cypher.CountEdges).
func (f *fakeDB) count(q string, groups []string) int64 {
	var n int64
	if m := reCountNode.FindStringSubmatch(q); m != nil {
		want := strings.Split(m[1], ":")
		for _, nd := range f.nodes {
			if slices.Contains(groups, nd.group) && !slices.ContainsFunc(want, func(l string) bool { return !slices.Contains(nd.labels, l) }) {
				n += int64(nd.copies)
			}
		}
		return n
	}
	typ := reCountEdge.FindStringSubmatch(q)[1]
	for _, e := range f.edges {
		if slices.Contains(groups, e.group) && e.typ == typ {
			n += int64(e.copies)
		}
	}
	return n
}

func (f *fakeDB) close(context.Context) error { return nil }

// state renders the fake graph as sorted lines.
func (f *fakeDB) state() string {
	var lines []string
	for id, nd := range f.nodes {
		for range nd.copies {
			lines = append(lines, fmt.Sprintf("node %s %s %v", nd.group, id, nd.labels))
		}
	}
	for id, e := range f.edges {
		for range e.copies {
			lines = append(lines, fmt.Sprintf("edge %s %s %s %s->%s", e.group, id, e.typ, e.from, e.to))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// connErr is a connectivity error the driver would report for a dropped connection.
func connErr() error { return &neo4j.ConnectivityError{Inner: errors.New("connection reset by peer")} }
