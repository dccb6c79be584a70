package living

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// duplicateUUIDs counts the uuids held by more than one node, and by more than one relationship.
func (e env) duplicateUUIDs(t *testing.T) (nodes, rels int64) {
	t.Helper()
	nodes = e.count(t, "MATCH (n) WHERE n.uuid IS NOT NULL WITH n.uuid AS u, count(*) AS c WHERE c > 1 RETURN count(u) AS n")
	rels = e.count(t, "MATCH ()-[r]->() WHERE r.uuid IS NOT NULL WITH r.uuid AS u, count(*) AS c WHERE c > 1 RETURN count(u) AS n")
	return nodes, rels
}

// TestTwoLoadsOneGraph: two stores loading the same groups into one Neo4j at once leave each
// uuid once; a lease held by another load stops a load that may not wait, naming the holder; a
// database an older version duplicated is repaired by the next load.
func TestTwoLoadsOneGraph(t *testing.T) {
	neo := testenv.Neo4jExclusive(t)
	e := newEnv(t, neo)
	src := e.conversations(t, "conversations.jsonl")

	// The graph one load gives.
	single := e.job(t, "single", src)
	if code, _, res := e.run(t, single); code != 0 {
		t.Fatalf("single load: exit %d\n%s", code, harness.Tail(res.Stderr, 30))
	}
	want := harness.Graph(t, neo)
	if err := harness.ClearNeo4j(t.Context(), neo); err != nil {
		t.Fatal(err)
	}

	// Two stores at once.
	jobs := []string{e.job(t, "nightly", src), e.job(t, "manual", src)}
	type outcome struct {
		code int
		rep  report.Report
		res  harness.Result
	}
	out := make([]outcome, 2)
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, rep, res := e.run(t, j)
			out[i] = outcome{code, rep, res}
		}()
	}
	wg.Wait()
	names := []string{"nightly", "manual"}
	for i, o := range out {
		switch {
		case o.code == 0 && o.rep.Load != nil:
			t.Logf("%s: exit 0, waited %.2f s for leases; report %+v", names[i], o.rep.Load.LeaseWaitSeconds, *o.rep.Load)
		case o.code != 0 && strings.Contains(o.res.Stderr, fmt.Sprintf("job %q", names[1-i])):
			t.Logf("%s: failed naming the other load:\n%s", names[i], harness.Tail(o.res.Stderr, 5))
		default:
			t.Errorf("%s: exit %d without waiting for or naming the other load\n%s", names[i], o.code, harness.Tail(o.res.Stderr, 20))
		}
	}
	if n, r := e.duplicateUUIDs(t); n != 0 || r != 0 {
		t.Errorf("after two loads at once: %d node uuids and %d relationship uuids held more than once", n, r)
	}
	for i, j := range jobs {
		if code, _, res := e.run(t, j); code != 0 {
			t.Fatalf("re-run of %s: exit %d\n%s", names[i], code, harness.Tail(res.Stderr, 30))
		}
		if d := harness.DiffLines(want, harness.Graph(t, neo)); d != "" {
			t.Errorf("after a re-run of %s the graph differs from a single load's:\n%s", names[i], d)
		}
	}

	// A lease a load of another host holds, and no waiting: the load fails at once, naming it.
	if _, err := harness.Neo4jQuery(t.Context(), neo, `CREATE (:BackfillLease {group: 'alice', holder: 'other',
		host: 'cron-host', pid: 4242, job: 'cron-nightly', since: timestamp(), expires: timestamp() + 600000})`); err != nil {
		t.Fatal(err)
	}
	code, _, res := e.run(t, jobs[0], "--set", "sink.reload=true", "--set", "sink.lease_wait_seconds=0")
	if code == 0 || !strings.Contains(res.Stderr, `host cron-host, pid 4242, job "cron-nightly"`) {
		t.Errorf("a load meeting another's lease: exit %d, want a failure naming job cron-nightly, pid 4242:\n%s", code, harness.Tail(res.Stderr, 10))
	}
	if _, err := harness.Neo4jQuery(t.Context(), neo, "MATCH (l:BackfillLease) DELETE l"); err != nil {
		t.Fatal(err)
	}
	// A lease left by a killed load of this host (its process is gone) is taken over at once.
	host, _ := os.Hostname()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Neo4jQuery(t.Context(), neo, fmt.Sprintf(`CREATE (:BackfillLease {group: 'alice', holder: 'killed',
		host: '%s', pid: %d, job: 'killed-run', since: timestamp(), expires: timestamp() + 600000})`, host, gone.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	code, _, res = e.run(t, jobs[0], "--set", "sink.reload=true", "--set", "sink.lease_wait_seconds=0")
	if code != 0 || !strings.Contains(res.Stderr, "took over the leases of a load whose process is gone") {
		t.Errorf("a load meeting the lease of a killed load of this host: exit %d, want a take-over:\n%s", code, harness.Tail(res.Stderr, 10))
	}
	if _, err := harness.Neo4jQuery(t.Context(), neo, "MATCH (l:BackfillLease) DELETE l"); err != nil {
		t.Fatal(err)
	}
	if d := harness.DiffLines(want, harness.Graph(t, neo)); d != "" {
		t.Errorf("after the take-over the graph differs from a single load's:\n%s", d)
	}
	// A reload into a closed port is refused before it starts (runner.Preflight, exit 2): it
	// changes nothing, so a plain run after it has no group to load. (A load that fails once it
	// has started leaves its groups unrecorded: tests/sinkrestart.)
	res, err := harness.Run(t.Context(), e.bin, []string{"run", jobs[0], "--set", "sink.reload=true", "--set", "sink.lease_wait_seconds=0",
		"--set", "sink.uri=bolt://127.0.0.1:1", "--set", "sink.max_attempts=1"}, harness.Options{Dir: e.dir})
	if err != nil || res.Code != 2 || !strings.Contains(res.Stderr, "cannot connect to the neo4j sink") {
		t.Fatalf("a reload into a closed port: exit %d (%v), want 2 naming the sink:\n%s", res.Code, err, harness.Tail(res.Stderr, 10))
	}
	code, rep, res := e.run(t, jobs[0])
	if code != 0 || rep.Load != nil && rep.Load.Groups != 0 {
		t.Errorf("the run after a refused reload: exit %d, load %+v: want no group to load\n%s", code, rep.Load, harness.Tail(res.Stderr, 10))
	}

	// A database an older version duplicated: no constraint, every node and relationship twice.
	constraints, err := harness.Neo4jQuery(t.Context(), neo, "SHOW CONSTRAINTS YIELD name RETURN name")
	if err != nil {
		t.Fatal(err)
	}
	if len(constraints) == 0 {
		t.Errorf("no uniqueness constraint after the loads")
	}
	for _, c := range constraints {
		if _, err := harness.Neo4jQuery(t.Context(), neo, fmt.Sprintf("DROP CONSTRAINT `%s`", c["name"])); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"MATCH (n:Episodic) CREATE (m:Episodic) SET m = properties(n)",
		"MATCH (n:Entity) CREATE (m:Entity) SET m = properties(n)",
		"MATCH (n:Community) CREATE (m:Community) SET m = properties(n)",
		// The copies' own mentions, as two CREATE loads leave them.
		`MATCH (e:Episodic)-[r:MENTIONS]->(x:Entity) MATCH (c:Episodic {uuid: e.uuid}) WHERE elementId(c) <> elementId(e)
		 MATCH (y:Entity {uuid: x.uuid}) WHERE elementId(y) <> elementId(x) CREATE (c)-[s:MENTIONS]->(y) SET s = properties(r)`,
		"MATCH (a)-[r:RELATES_TO]->(b) CREATE (a)-[s:RELATES_TO]->(b) SET s = properties(r)",
	} {
		if _, err := harness.Neo4jQuery(t.Context(), neo, q); err != nil {
			t.Fatal(err)
		}
	}
	n, r := e.duplicateUUIDs(t)
	t.Logf("duplicated by hand: %d node uuids, %d relationship uuids held twice", n, r)
	code, rep, res = e.run(t, jobs[1], "--set", "sink.reload=true")
	if code != 0 || rep.Load == nil {
		t.Fatalf("the load after the duplication: exit %d\n%s", code, harness.Tail(res.Stderr, 30))
	}
	t.Logf("repairing load: %+v", *rep.Load)
	if rep.Load.DuplicatesRepaired == 0 {
		t.Errorf("report: duplicates_repaired 0")
	}
	if n, r := e.duplicateUUIDs(t); n != 0 || r != 0 {
		t.Errorf("after the repairing load: %d node uuids and %d relationship uuids held more than once", n, r)
	}
	if d := harness.DiffLines(want, harness.Graph(t, neo)); d != "" {
		t.Errorf("after the repairing load the graph differs from a single load's:\n%s", d)
	}
	if len(rep.Load.ConstraintsMissing) > 0 {
		t.Errorf("constraints still missing after the repair: %v", rep.Load.ConstraintsMissing)
	}
}
