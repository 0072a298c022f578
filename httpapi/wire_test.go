package httpapi_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"seald.dev/seald/httpapi"
	"seald.dev/seald/wire"
)

// TestWireMatchesOpenAPI checks every type of package wire against its schema in openapi.json: the same
// members by JSON name, a member required by the schema exactly when the Go field is always written (no
// omitempty), and the same JSON type, nested objects and arrays included. A member added to one and not
// the other fails here, before any client meets it.
func TestWireMatchesOpenAPI(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	data := func(envelope string) map[string]any {
		return schemas[envelope]["properties"].(map[string]any)["data"].(map[string]any)
	}
	for _, c := range []struct {
		schema map[string]any
		name   string
		v      any
	}{
		{schemas["VerificationResult"], "VerificationResult", wire.Verification{}},
		{schemas["ProofBundle"], "ProofBundle", wire.Proof{}},
		{schemas["StatusRecord"], "StatusRecord", wire.StatusRecord{}},
		{schemas["AuthenticationRequest"], "AuthenticationRequest", wire.AuthenticationRequest{}},
		{schemas["AuthenticationResult"], "AuthenticationResult", wire.AuthenticationResult{}},
		{schemas["GeneratorResult"], "GeneratorResult", wire.GeneratorResult{}},
		{schemas["StatusChangeResult"], "StatusChangeResult", wire.StatusChange{}},
		{data("PublicKeyOK"), "PublicKeyOK.data", wire.PublicKey{}},
		{schemas["Webhook"], "Webhook", wire.Webhook{}},
		{data("WebhookListOK"), "WebhookListOK.data", wire.WebhookList{}},
		{schemas["Delivery"], "Delivery", wire.Delivery{}},
		{data("DeliveryListOK"), "DeliveryListOK.data", wire.DeliveryList{}},
	} {
		if c.schema == nil {
			t.Errorf("openapi.json has no schema %s", c.name)
			continue
		}
		for _, p := range compare(schemas, c.schema, reflect.TypeOf(c.v), c.name) {
			t.Error(p)
		}
	}
}

// compare lists the differences between a schema and a Go type, at path.
func compare(schemas map[string]map[string]any, s map[string]any, typ reflect.Type, path string) []string {
	if ref, ok := s["$ref"].(string); ok {
		s = schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	}
	if all := asSlice(s["allOf"]); len(all) == 1 {
		return compare(schemas, all[0].(map[string]any), typ, path)
	}
	// One of several: a nullable member is its schema or null; the Go type must match one alternative.
	if alts := asSlice(s["oneOf"]); alts != nil && !typ.Implements(reflect.TypeFor[json.Marshaler]()) {
		var first []string
		for _, a := range alts {
			a := a.(map[string]any)
			if a["type"] == "null" {
				continue
			}
			problems := compare(schemas, a, typ, path)
			if problems == nil {
				return nil
			}
			if first == nil {
				first = problems
			}
		}
		return first
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	// A type that writes itself (a raw JSON object, a flag written as 0 or 1) is the schema's to describe.
	if typ.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil
	}
	types := schemaTypes(s)
	var want string
	switch typ.Kind() {
	case reflect.String:
		want = "string"
	case reflect.Bool:
		want = "boolean"
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64:
		want = "integer"
	case reflect.Slice:
		want = "array"
	case reflect.Struct:
		want = "object"
	default:
		return []string{fmt.Sprintf("%s: Go type %s has no JSON type here", path, typ)}
	}
	if !slices.Contains(types, want) {
		return []string{fmt.Sprintf("%s: Go %s is JSON %s, the schema says %v", path, typ, want, types)}
	}
	switch typ.Kind() {
	case reflect.Slice:
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return []string{path + ": an array without items"}
		}
		return compare(schemas, items, typ.Elem(), path+"[]")
	case reflect.Struct:
		return compareObject(schemas, s, typ, path)
	}
	return nil
}

func compareObject(schemas map[string]map[string]any, s map[string]any, typ reflect.Type, path string) []string {
	var problems []string
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	for _, r := range asSlice(s["required"]) {
		required[r.(string)] = true
	}
	seen := map[string]bool{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		seen[name] = true
		p := path + "." + name
		ps, ok := props[name].(map[string]any)
		if !ok {
			problems = append(problems, p+": in Go, not in the schema")
			continue
		}
		always := !strings.Contains(opts, "omitempty")
		if always != required[name] {
			problems = append(problems, fmt.Sprintf("%s: Go always writes it: %v, the schema requires it: %v", p, always, required[name]))
		}
		problems = append(problems, compare(schemas, ps, f.Type, p)...)
	}
	var missing []string
	for name := range props {
		if !seen[name] {
			missing = append(missing, path+"."+name+": in the schema, not in Go")
		}
	}
	sort.Strings(missing)
	return append(problems, missing...)
}

// schemaTypes is the JSON types a schema allows: its type (one or a list), or the type of its const.
func schemaTypes(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			out = append(out, v.(string))
		}
		return out
	}
	switch s["const"].(type) {
	case string:
		return []string{"string"}
	case bool:
		return []string{"boolean"}
	case float64:
		return []string{"integer"}
	}
	return nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
