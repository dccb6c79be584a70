package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// openers are the functions that open a checkpoint store file or a store kept in object storage.
var openers = map[string]bool{"checkpoints.Open": true, "checkpoints.OpenReadOnly": true, "replica.Open": true,
	"replica.OpenReadOnly": true}

// openerCallers are the files of cmd/ and jobs/ that may call them, with why: every command opens
// the job's store through the one opener, pipeline.OpenCheckpoint.
var openerCallers = map[string]string{
	"jobs/pipeline/checkpoint.go": "the one opener (pipeline.OpenCheckpoint)",
	"jobs/planner/planner.go":     "the plan's scratch store in a temporary directory, never the job's store",
	"jobs/jobstest/jobstest.go":   "test helpers: the test's own store",
}

// TestOneStoreOpener: no code of the commands (cmd/) or of the job packages (jobs/) opens a
// checkpoint store but through pipeline.OpenCheckpoint, so every command opens local and s3://
// stores alike (forget once opened the file itself and could not open an s3:// store).
func TestOneStoreOpener(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	n := 0
	for _, dir := range []string{"cmd", "jobs"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			n++
			ast.Inspect(f, func(node ast.Node) bool {
				sel, ok := node.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok && openers[x.Name+"."+sel.Sel.Name] {
					if _, allowed := openerCallers[rel]; !allowed {
						t.Errorf("%s uses %s.%s: open the job's store with pipeline.OpenCheckpoint", rel, x.Name, sel.Sel.Name)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 40 {
		t.Fatalf("read only %d files", n)
	}
}
