package httpapi

import (
	"reflect"
	"testing"

	"seald.dev/seald/wire"
)

// Every field of a verification answer (Proof apart: answers with a proof are not held) changes its
// fingerprint, so that a field added to wire.Verification and forgotten in fingerprint fails here instead
// of letting a held answer outlive a change of that field; and so does moving text between two fields.
func TestAnswerFingerprintCoversEveryField(t *testing.T) {
	var base wire.Verification
	sum := fingerprint(&base)
	leaves := 0
	var walk func(typ reflect.Type, index []int, path string)
	walk = func(typ reflect.Type, index []int, path string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			idx, p := append(append([]int(nil), index...), i), path+"."+f.Name
			c := base
			v := reflect.ValueOf(&c).Elem().FieldByIndex(idx)
			switch {
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, idx, p)
				continue
			case p == ".Proof":
				continue
			case f.Type.Kind() == reflect.String:
				v.SetString("x")
			case f.Type.Kind() == reflect.Bool:
				v.SetBool(true)
			case f.Type.Kind() == reflect.Int:
				v.SetInt(2)
			default:
				t.Errorf("%s: a %s, which fingerprint does not know", p, f.Type)
				continue
			}
			leaves++
			if fingerprint(&c) == sum {
				t.Errorf("%s changed, fingerprint the same", p)
			}
		}
	}
	walk(reflect.TypeFor[wire.Verification](), nil, "")
	if leaves < 30 {
		t.Errorf("only %d fields walked", leaves)
	}
	a, b := base, base
	a.Details.Mimetype, b.Details.EncryptedFile = "ab", "ab"
	if fingerprint(&a) == fingerprint(&b) {
		t.Error("the same text in two neighbouring fields has one fingerprint")
	}
}
