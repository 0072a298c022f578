package seald_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"seald.dev/seald"
)

// TestCodesListsEveryCode reads error.go and checks that Codes lists every constant of type Code, so that
// the status table's test (httpapi TestEveryCodeHasAStatus) sees a new code.
func TestCodesListsEveryCode(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Code" {
				for _, n := range v.Names {
					declared = append(declared, n.Name)
				}
			}
		}
	}
	if len(declared) != len(seald.Codes) {
		t.Errorf("error.go declares %d codes %v; Codes lists %d", len(declared), declared, len(seald.Codes))
	}
	if !slices.Contains(declared, "ECONFLICT") || slices.Contains(seald.Codes, "") {
		t.Errorf("declared %v", declared)
	}
}

// TestErrorCodeAndMessage: the code and caller-safe message are those of the first *Error in the chain;
// anything else is internal, with a generic message.
func TestErrorCodeAndMessage(t *testing.T) {
	wrapped := fmtErr(seald.Errorf(seald.ECONFLICT, "another business is named %q", "Acme"))
	if seald.ErrorCode(wrapped) != seald.ECONFLICT || seald.ErrorMessage(wrapped) != `another business is named "Acme"` {
		t.Errorf("%q %q", seald.ErrorCode(wrapped), seald.ErrorMessage(wrapped))
	}
	internal := &seald.Error{Code: seald.EINTERNAL, Message: "disk path /x", Op: "op"}
	if seald.ErrorMessage(internal) != "internal error" || seald.ErrorCode(nil) != "" || seald.ErrorCode(errPlain) != seald.EINTERNAL {
		t.Error("internal errors leak or nil has a code")
	}
}

var errPlain = errorString("plain")

type errorString string

func (e errorString) Error() string { return string(e) }

func fmtErr(err error) error { return &wrapper{err} }

type wrapper struct{ err error }

func (w *wrapper) Error() string { return "context: " + w.err.Error() }
func (w *wrapper) Unwrap() error { return w.err }
