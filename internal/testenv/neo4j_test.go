package testenv

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestNeo4jServer checks that the server scripts/neo4j.sh starts answers Bolt without
// authentication and is Neo4j 5.26.
func TestNeo4jServer(t *testing.T) {
	uri := Neo4jExclusive(t)
	ctx := t.Context()
	driver, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		t.Fatalf("creating driver: %v", err)
	}
	defer driver.Close(ctx)

	res, err := neo4j.ExecuteQuery(ctx, driver, "RETURN 1 AS one", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("RETURN 1: %v", err)
	}
	if one, _ := res.Records[0].Get("one"); one != int64(1) {
		t.Errorf("RETURN 1 gave %v", one)
	}

	res, err = neo4j.ExecuteQuery(ctx, driver,
		"CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition",
		nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatalf("dbms.components: %v", err)
	}
	rec := res.Records[0].AsMap()
	if rec["name"] != "Neo4j Kernel" || !strings.HasPrefix(rec["version"].(string), "5.26.") || rec["edition"] != "community" {
		t.Errorf("dbms.components() = %v, want Neo4j Kernel 5.26.x community", rec)
	}
	t.Logf("server: %v", rec)
}

func TestLockFileExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlockA, err := lockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	acquired := make(chan func())
	go func() {
		unlockB, err := lockFile(path)
		if err != nil {
			t.Error(err)
			close(acquired)
			return
		}
		acquired <- unlockB
	}()
	select {
	case <-acquired:
		t.Fatal("second lock acquired while the first was held")
	case <-time.After(200 * time.Millisecond):
	}
	unlockA()
	select {
	case unlockB := <-acquired:
		if unlockB != nil {
			unlockB()
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second lock not acquired after the first was released")
	}
}

func TestLockPath(t *testing.T) {
	a, b := lockPath("bolt://127.0.0.1:7687"), lockPath("bolt://127.0.0.1:7688")
	if a == b || strings.ContainsAny(filepath.Base(a), ":/") {
		t.Errorf("lockPath gave %q and %q", a, b)
	}
}
