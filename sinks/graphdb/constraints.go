package graphdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// missingConstraint is a uniqueness constraint a graph lacks, the statement that creates it and
// why it is missing.
type missingConstraint struct {
	graph  string
	st     cypher.Statement
	reason string
}

// constraintKey names a constraint of a graph.
func constraintKey(graph, name string) string { return graph + "\x00" + name }

// setMissing records constraint st of graph as missing for reason, or as present when reason is
// "".
func (l *Loader) setMissing(graph string, st cypher.Statement, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := constraintKey(graph, st.Constraint)
	if reason == "" {
		delete(l.missing, k)
		return
	}
	l.missing[k] = missingConstraint{graph: graph, st: st, reason: reason}
}

// unenforced reports whether graph lacks one of its uuid uniqueness constraints: a held group
// there may hold duplicates, which repairGroup looks for.
func (l *Loader) unenforced(graph string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.missing {
		if m.graph == graph {
			return true
		}
	}
	return false
}

// constraint runs a statement that creates a uniqueness constraint. A Neo4j range index of the
// same name or schema in its way (cypher.IndexBlocks) is dropped (st.Replaces) and the
// constraint tried again, unless the data holds duplicates (a repair must come first). A
// constraint that exists, or that another load created at the same moment, is success. Any
// other failure (duplicates; an index of another name) is not an error: st.Fallback (the range
// index the constraint would replace) runs instead and the constraint is recorded as missing,
// to be created by a later attempt (retryMissing) once the loaded groups are repaired.
func (l *Loader) constraint(ctx context.Context, graph string, st cypher.Statement) error {
	run := func(c string) error {
		return l.retrier().do(ctx, func(ctx context.Context) error {
			return l.ex.exec(ctx, graph, cypher.Statement{Cypher: c, AutoCommit: st.AutoCommit, Command: st.Command}, nil)
		})
	}
	err := run(st.Cypher)
	for try := 0; try < 3 && st.Replaces != "" && cypher.IndexBlocks(l.o.Dialect, err); try++ {
		if dup, derr := l.duplicate(ctx, graph, st); derr != nil || dup != "" {
			if derr != nil {
				return derr
			}
			err = fmt.Errorf("uuid %s is held more than once", dup)
			break
		}
		l.o.Log.Info("replacing a range index with the uniqueness constraint of the same name", "constraint", st.Constraint)
		if rerr := run(st.Replaces); rerr != nil {
			l.o.Log.Debug("dropping the index in the way", "statement", st.Replaces, "err", rerr)
		}
		err = run(st.Cypher)
	}
	if err == nil || cypher.SchemaExists(l.o.Dialect, err) && !cypher.IndexBlocks(l.o.Dialect, err) {
		l.setMissing(graph, st, "")
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	reason := err.Error()
	if len(reason) > 300 {
		reason = reason[:300] + "…"
	}
	l.o.Log.Warn("uuid uniqueness constraint not created: the next load tries again", "constraint", st.Constraint, "graph", graph, "err", reason)
	l.setMissing(graph, st, reason)
	if st.Fallback != "" && !cypher.IndexBlocks(l.o.Dialect, err) {
		return l.schemaRun(ctx, graph, []cypher.Statement{{Cypher: st.Fallback, AutoCommit: st.AutoCommit}})
	}
	return nil
}

// duplicate returns a uuid that more than one element of the constraint's label or type holds
// in graph, "" when none does (st.Duplicates; "" when the statement has no such query).
func (l *Loader) duplicate(ctx context.Context, graph string, st cypher.Statement) (string, error) {
	if st.Duplicates == "" {
		return "", nil
	}
	var dup string
	err := l.retrier().do(ctx, func(ctx context.Context) error {
		dup = ""
		return l.ex.query(ctx, graph, st.Duplicates, nil, func(v []any) error {
			dup = fmt.Sprint(v[0])
			return nil
		})
	})
	if err != nil {
		return "", fmt.Errorf("looking for duplicates before creating %s: %w", st.Constraint, err)
	}
	return dup, nil
}

// constraintWait bounds how long awaitConstraints waits for FalkorDB to build a graph's
// constraints; one still pending then counts as missing for this load.
const constraintWait = time.Minute

// awaitConstraints waits until FalkorDB has built the uniqueness constraints of graph (it
// builds them in the background). A constraint that failed (the graph holds duplicates) is
// dropped, so that it can be created again after the repair, and recorded as missing. Other
// dialects build a constraint when they create it: nothing to wait for.
func (l *Loader) awaitConstraints(ctx context.Context, graph string) error {
	q := cypher.ConstraintStates(l.o.Dialect)
	if q == "" {
		return nil
	}
	deadline := time.Now().Add(constraintWait)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		states := map[string]string{}
		err := l.retrier().do(ctx, func(ctx context.Context) error {
			clear(states)
			return l.ex.query(ctx, graph, q, nil, func(v []any) error {
				props, _ := v[1].([]any)
				if len(props) == 1 && props[0] == "uuid" {
					states[fmt.Sprint(v[0])+"(uuid)"] = fmt.Sprint(v[2])
				}
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("reading the constraints of graph %s: %w", graph, err)
		}
		pending := false
		for name, state := range states {
			st, ok := cypher.FalkorDropConstraint(name)
			if !ok {
				continue
			}
			create, _ := cypher.FalkorCreateConstraint(name)
			switch state {
			case "OPERATIONAL":
				l.setMissing(graph, create, "")
			case "FAILED":
				if err := l.retrier().do(ctx, func(ctx context.Context) error { return l.ex.exec(ctx, graph, st, nil) }); err != nil {
					return fmt.Errorf("dropping the failed constraint %s of graph %s: %w", name, graph, err)
				}
				l.o.Log.Warn("uuid uniqueness constraint failed: the graph holds duplicates", "constraint", name, "graph", graph)
				l.setMissing(graph, create, "FalkorDB could not build it: the graph holds duplicates")
			default:
				pending = true
				if !time.Now().Before(deadline) {
					l.setMissing(graph, create, "still being built after "+constraintWait.String())
					pending = false
				}
			}
		}
		if !pending {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// retryMissing tries again to create the missing constraints of graph (every graph when graph
// is nil), after the loaded groups were repaired.
func (l *Loader) retryMissing(ctx context.Context, graph *string) error {
	l.mu.Lock()
	var todo []missingConstraint
	for _, m := range l.missing {
		if graph == nil || m.graph == *graph {
			todo = append(todo, m)
		}
	}
	l.mu.Unlock()
	slices.SortFunc(todo, func(a, b missingConstraint) int {
		return strings.Compare(constraintKey(a.graph, a.st.Constraint), constraintKey(b.graph, b.st.Constraint))
	})
	graphs := map[string]bool{}
	for _, m := range todo {
		if err := l.constraint(ctx, m.graph, m.st); err != nil {
			return err
		}
		graphs[m.graph] = true
	}
	for g := range graphs {
		if err := l.awaitConstraints(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// missingReport lists the constraints still missing, for Result.ConstraintsMissing.
func (l *Loader) missingReport() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, m := range l.missing {
		where := ""
		if m.graph != "" {
			where = " in graph " + m.graph
		}
		out = append(out, m.st.Constraint+where+": "+m.reason)
	}
	slices.Sort(out)
	return out
}
