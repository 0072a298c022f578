package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemTestsRunInParallel: every test of this package calls t.Parallel() first, or says in its doc
// comment why it is "Not parallel". The system tests mostly wait on the programs they start (serve, a chain,
// a browser), so one that runs alone leaves the cores idle for its whole length: when they ran one at a
// time, make test took minutes more (issue 40).
func TestSystemTestsRunInParallel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			if fn.Doc != nil && strings.Contains(fn.Doc.Text(), "Not parallel") {
				continue
			}
			if !callsParallelFirst(fn) {
				t.Errorf("%s: %s neither calls t.Parallel() first nor says why it is \"Not parallel\"", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}

// callsParallelFirst reports whether fn's first statement is t.Parallel().
func callsParallelFirst(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	es, ok := fn.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Parallel"
}
