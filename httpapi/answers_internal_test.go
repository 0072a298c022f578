package httpapi

import (
	"reflect"
	"testing"
	"time"

	"seald.dev/seald"
	"seald.dev/seald/mock"
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
			case f.Type == reflect.TypeFor[*bool]():
				v.Set(reflect.ValueOf(new(bool)))
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

// A verification reads its record brief (seald.Record.Brief) unless a proof is asked for, so every field of
// a record that its answer shows must be one of the brief ones: a field added to the answer and not to the
// brief read would be answered empty. Each field of the record is set alone, and the answer of the whole
// record must be the answer of its brief copy.
func TestVerificationResultReadsOnlyBrief(t *testing.T) {
	s := &Server{Service: &mock.Service{VerificationService: mock.VerificationService{ChainFn: func(string) (seald.Chain, bool) { return seald.Chain{}, true }}},
		GatewayURL: "https://gw.example"}
	owner := &seald.Verification{Business: &seald.Business{}, Project: &seald.Project{}}
	answer := func(r *seald.Record) *wire.Verification {
		v := *owner
		v.Record = r
		return s.verificationResult(&v)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fields := 0
	typ := reflect.TypeFor[seald.Record]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		var r seald.Record
		v := reflect.ValueOf(&r).Elem().Field(i)
		switch {
		case f.Type == reflect.TypeFor[time.Time]():
			v.Set(reflect.ValueOf(at))
		case f.Type == reflect.TypeFor[seald.StateTimes]():
			r.Reached = seald.StateTimes{IPFSStored: at, AnchorSubmitted: at, Anchored: at, EmailSent: at, Completed: at, Failed: at}
		case f.Type.Kind() == reflect.String:
			v.SetString("x")
		case f.Type.Kind() == reflect.Bool:
			v.SetBool(true)
		case f.Type.Kind() == reflect.Uint64, f.Type.Kind() == reflect.Int64:
			if f.Type.Kind() == reflect.Uint64 {
				v.SetUint(7)
			} else {
				v.SetInt(7)
			}
		case f.Type.Kind() == reflect.Slice:
			v.Set(reflect.ValueOf([]string{"0x1"}))
		case f.Type.Kind() == reflect.Pointer:
			v.Set(reflect.New(f.Type.Elem()))
		default:
			t.Errorf("Record.%s: a %s, which this test does not know", f.Name, f.Type)
			continue
		}
		fields++
		if got, want := answer(r.Brief()), answer(&r); !reflect.DeepEqual(got, want) {
			t.Errorf("Record.%s shows in the answer but the brief read leaves it out", f.Name)
		}
	}
	if fields < 35 {
		t.Errorf("only %d fields set", fields)
	}
}
