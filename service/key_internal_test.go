package service

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"seald.dev/seald"
)

// TestDigestEqual checks the key comparison's answers, and that it is the constant-time one of crypto/subtle:
// a caller must not learn from response times how much of a guessed key's digest matched. (Timing itself is
// not asserted: the code path is what can be checked without flakiness.)
func TestDigestEqual(t *testing.T) {
	d := seald.KeyDigest("some key")
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{d, d, true},
		{d, seald.KeyDigest("some kez"), false},
		{d, d[:len(d)-1] + "0", d[len(d)-1] == '0'},
		{d, d[:10], false},
		{"", "", true},
	} {
		if got := digestEqual(c.a, c.b); got != c.want {
			t.Errorf("digestEqual(%q, %q) = %v", c.a, c.b, got)
		}
	}

	f, err := parser.ParseFile(token.NewFileSet(), "key.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found, constantTime bool
	ast.Inspect(f, func(n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "digestEqual" {
			return true
		}
		found = true
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "subtle" && sel.Sel.Name == "ConstantTimeCompare" {
					constantTime = true
				}
			}
			if be, ok := n.(*ast.BinaryExpr); ok && (be.Op == token.EQL || be.Op == token.NEQ) {
				if _, isLit := be.Y.(*ast.BasicLit); !isLit {
					t.Errorf("digestEqual compares with %s on non-constant operands", be.Op)
				}
			}
			return true
		})
		return false
	})
	if !found || !constantTime {
		t.Errorf("digestEqual (found %v) must use subtle.ConstantTimeCompare", found)
	}
}
