package proof_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowed are the only packages of seald that package proof may import, directly or through one another: a
// verifier vendors proof with these and nothing of the service or its stores.
var allowed = map[string]bool{"seald.dev/seald/jcs": true, "seald.dev/seald/wire": true}

// TestImportsNoSealdPackage reads the import clauses of package proof's files (tests aside), and of every
// seald package they reach, and fails on any seald package but jcs and wire.
func TestImportsNoSealdPackage(t *testing.T) {
	seen := map[string]bool{}
	var visit func(pkg, dir string)
	visit = func(pkg, dir string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files in %s (%v)", pkg, dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != "seald.dev/seald" && !strings.HasPrefix(path, "seald.dev/seald/") {
					continue
				}
				if !allowed[path] {
					t.Errorf("%s imports %s: package proof may reach no seald package but jcs and wire", f, path)
					continue
				}
				visit(path, filepath.Join("..", strings.TrimPrefix(path, "seald.dev/seald/")))
			}
		}
	}
	visit("seald.dev/seald/proof", ".")
	if !seen["seald.dev/seald/jcs"] {
		t.Error("package proof does not import jcs: is this test reading the right files?")
	}
}
