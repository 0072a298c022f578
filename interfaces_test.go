package seald_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// consumers are the packages that use the service: each combines the root's interfaces and declares none
// of their methods again (STYLE habit 19).
var consumers = []string{"httpapi", "console", "web", "mock"}

// interfaceMethods returns, for every interface type declared in the non-test files of dir, its methods
// declared there (embedded interfaces are not counted), keyed by name and signature, with where each is.
func interfaceMethods(t *testing.T, dir, pkg string, into map[string][]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			it, ok := ts.Type.(*ast.InterfaceType)
			if !ok {
				return true
			}
			for _, m := range it.Methods.List {
				ft, ok := m.Type.(*ast.FuncType)
				if !ok || len(m.Names) == 0 {
					continue // an embedded interface
				}
				var b bytes.Buffer
				if err := printer.Fprint(&b, fset, ft); err != nil {
					t.Fatal(err)
				}
				// The root names its own types bare, a consumer qualifies them: compare them alike.
				sig := strings.ReplaceAll(b.String(), "seald.", "")
				key := m.Names[0].Name + strings.TrimPrefix(sig, "func")
				into[key] = append(into[key], pkg+"."+ts.Name.Name)
			}
			return true
		})
	}
}

// TestNoMethodSetDeclaredTwice fails when a method of an interface is declared again in an interface of
// httpapi, console, web or mock, whether of a root interface or of another consumer's: a rule changed in
// one place must not need an edit in four.
func TestNoMethodSetDeclaredTwice(t *testing.T) {
	root := map[string][]string{}
	interfaceMethods(t, ".", "seald", root)
	for _, pkg := range consumers {
		mine := map[string][]string{}
		interfaceMethods(t, pkg, pkg, mine)
		for key, where := range mine {
			if others := root[key]; len(where) > 1 || len(others) > 0 {
				t.Errorf("%s is declared in %s", key, strings.Join(append(slices.Clone(where), others...), " and "))
			}
			root[key] = append(root[key], where...)
		}
	}
}
