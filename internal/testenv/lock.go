package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Neo4jExclusive returns the test Neo4j URI like Neo4j, and also holds an exclusive lock on that
// server until t ends, so tests in different packages (which `go test ./...` runs as parallel
// processes) do not clear or read each other's data in the single Community database. Call it
// once per test that needs the database to itself, never from parallel subtests of a test that
// already holds it (the lock is per call, so that would wait forever).
func Neo4jExclusive(t testing.TB) string {
	t.Helper()
	uri := Neo4j(t)
	if uri == "" {
		return ""
	}
	unlock, err := lockFile(lockPath(uri))
	if err != nil {
		t.Fatalf("locking neo4j %s: %v", uri, err)
		return ""
	}
	t.Cleanup(unlock)
	return uri
}

// FalkorDBExclusive returns the test FalkorDB URI like FalkorDB and holds an exclusive lock on
// that server until t ends, as Neo4jExclusive does for Neo4j: tests that clear the server or
// load groups of common names take it.
func FalkorDBExclusive(t testing.TB) string {
	t.Helper()
	uri := FalkorDB(t)
	if uri == "" {
		return ""
	}
	unlock, err := lockFile(lockPath(uri))
	if err != nil {
		t.Fatalf("locking falkordb %s: %v", uri, err)
		return ""
	}
	t.Cleanup(unlock)
	return uri
}

// S3Exclusive returns the test S3 gateway like S3 and holds an exclusive lock on it until t
// ends, for tests that use buckets of fixed names (the docs' recipes): the other tests make
// buckets of unique names (NewBucket) and need no lock.
func S3Exclusive(t testing.TB) S3Env {
	t.Helper()
	env := S3(t)
	if env.Endpoint == "" {
		return env
	}
	unlock, err := lockFile(lockPath(env.Endpoint))
	if err != nil {
		t.Fatalf("locking s3 %s: %v", env.Endpoint, err)
		return S3Env{}
	}
	t.Cleanup(unlock)
	return env
}

// lockPath names the lock file for a server URI, in the system temporary directory.
func lockPath(uri string) string {
	name := strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			return r
		}
		return '_'
	}, uri)
	return filepath.Join(os.TempDir(), "backfill-testenv-"+name+".lock")
}

// lockFile blocks until it holds an exclusive flock on path (creating the file if needed) and
// returns the function that releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
