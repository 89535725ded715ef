package jsonschema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// Tests of Compile in a program that does not link the full engine.

func TestNeedsTheFullEngine(t *testing.T) {
	withoutFullEngine(t)
	const fix = ` needs the full JSON Schema engine: import _ "github.com/mcpwire/mcpwire/server/fullschema"`
	const draft7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	for _, tc := range []struct {
		schema string
		opts   *CompileOptions
		what   string
	}{
		{`{"type":"object","unevaluatedProperties":false}`, nil, `"unevaluatedProperties"`},
		{`{"prefixItems":[{}],"unevaluatedItems":false}`, nil, `"unevaluatedItems"`},
		{`{"$dynamicAnchor":"meta","items":{"$dynamicRef":"#meta"}}`, nil, `"$dynamicAnchor"`},
		{`{"items":{"$dynamicRef":"#/$defs/a"},"$defs":{"a":{}}}`, nil, `"$dynamicRef"`},
		{`{"items":{"$recursiveRef":"#"}}`, nil, `"$recursiveRef"`},
		{`{"$dynamicAnchor":"x"}`, nil, `"$dynamicAnchor"`}, // wherever it is
		{`{"$ref":"#/x","x":{"$anchor":"a"}}`, nil, `"$ref" "#/x" (a reference to a location outside the schema's subschemas that declares an anchor)`},
		{`{"$ref":"#a","x":{"$anchor":"a"},"$defs":{"b":{"$ref":"#/x"}}}`, nil, `"$ref" "#a" (a reference to an anchor declared outside the schema's subschemas)`},
		{`{"$defs":{"a":{"$id":"https://example.com/a"}},"$ref":"https://example.com/a"}`, nil, `"$id" below the root`},
		{`{"enum":[{"$id":"#a"}]}`, nil, `"$id" below the root`},
		{`{` + draft7 + `"definitions":{"a":{"$id":"a.json#x"}}}`, nil, `"$id" below the root`},
		{`{"$id":"https://example.com/s.json","$ref":"s.json#/$defs/a","$defs":{"a":{}}}`, nil, `"$ref" "s.json#/$defs/a" (a reference that is not a fragment of this document)`},
		{`{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, nil, `"$ref" "https://json-schema.org/draft/2020-12/schema" (a reference that is not a fragment of this document)`},
		{`{` + draft7 + `"items":[{"type":"string"}]}`, nil, `"items" as an array (draft-07)`},
		{`{` + draft7 + `"dependencies":{"a":["b"]}}`, nil, `"dependencies" (draft-07)`},
		{`{"format":"email"}`, &CompileOptions{AssertFormat: true}, `"format" as an assertion (CompileOptions.AssertFormat)`},
	} {
		_, err := Compile(json.RawMessage(tc.schema), tc.opts)
		want := "jsonschema: " + tc.what + fix
		if err == nil || err.Error() != want || !errors.Is(err, ErrNeedsFullEngine) || errors.Is(err, ErrRemoteRef) {
			t.Errorf("Compile(%s) error =\n%v\nwant\n%s", tc.schema, err, want)
		}
	}
}

func TestRemoteRefsWithoutTheFullEngine(t *testing.T) {
	withoutFullEngine(t)
	for _, tc := range []struct{ schema, want string }{
		{`{"$ref":"https://example.com/a.json#/x"}`, `reference to "https://example.com/a.json"`},
		{`{"properties":{"a":{"$ref":"a.json"}}}`, `reference to "a.json"`},
		{`{"$id":"https://example.com/dir/s.json","$ref":"a.json"}`, `reference to "https://example.com/dir/a.json"`},
	} {
		_, err := Compile(json.RawMessage(tc.schema), nil)
		if !errors.Is(err, ErrRemoteRef) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) error = %v, want %q wrapping ErrRemoteRef", tc.schema, err, tc.want)
		}
	}
}

// The meta-schemas are compiled by the first Compile that needs them, and
// never for a schema inferred from Go types.
func TestMetaSchemasAreCompiledOnDemand(t *testing.T) {
	withoutFullEngine(t)
	metaOnce, metaSchemas = [2]sync.Once{}, [2]*Schema{}
	compiled := func() bool { return metaSchemas[draft2020] != nil || metaSchemas[draft7] != nil }
	type Args struct {
		Text  string   `json:"text"`
		Items []string `json:"items,omitempty"`
	}
	if _, err := For[Args](nil); err != nil || compiled() {
		t.Fatalf("For compiled a meta-schema (err %v)", err)
	}
	// A schema written by hand in TypeSchemas is checked.
	_, err := For[Args](&InferOptions{TypeSchemas: map[reflect.Type]json.RawMessage{reflect.TypeFor[string](): json.RawMessage(`{"type":"strin"}`)}})
	if err == nil || !strings.Contains(err.Error(), "not a valid schema: #/properties/text/type") {
		t.Errorf("For with a bad TypeSchemas entry: %v", err)
	}
	if metaSchemas[draft2020] == nil || metaSchemas[draft7] != nil {
		t.Error("the 2020-12 meta-schema should be compiled, and only it")
	}
	if _, err := Compile(json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#"}`), nil); err != nil || metaSchemas[draft7] == nil {
		t.Errorf("draft-07: %v", err)
	}
}

// The embedded meta-schemas are valid schemas, for the full engine and for
// themselves.
func TestEmbeddedMetaSchemasAreValid(t *testing.T) {
	for _, d := range []dialect{draft2020, draft7} {
		m := metaSchema(d)
		if _, err := compileFull(t, m.raw, false); err != nil {
			t.Errorf("full engine: %v", err)
		}
		if err := metaCheck(m.raw, d, "#"); err != nil {
			t.Errorf("built-in check: %v", err)
		}
	}
}

// In draft-07 the full engine asserts format "regex" whatever it is told;
// the fast engine does the same, with the same test.
func TestDraft7FormatRegexIsAsserted(t *testing.T) {
	s := MustCompile(`{"$schema":"http://json-schema.org/draft-07/schema#","format":"regex"}`)
	if s.fast == nil {
		t.Fatal("fast engine declined")
	}
	full, err := compileFull(t, s.raw, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ instance, want string }{
		{`"^a+$"`, ""},
		{`5`, ""},
		{`"("`, "instance: string \"(\" is not a valid regex: error parsing regexp: missing closing ): `(`"},
	} {
		if got := errString(s.Validate(json.RawMessage(tc.instance))); got != tc.want {
			t.Errorf("Validate(%s) = %s, want %s", tc.instance, got, tc.want)
		}
		if ferr := full.Validate([]byte(tc.instance)); (ferr == nil) != (tc.want == "") {
			t.Errorf("full engine: Validate(%s) = %v", tc.instance, ferr)
		}
	}
	if s := MustCompile(`{"format":"regex"}`); s.Validate(json.RawMessage(`"("`)) != nil {
		t.Error("in 2020-12 format is an annotation")
	}
}

func TestRegisterFullEngine(t *testing.T) {
	e := theFullEngine(t)
	for _, tc := range []struct {
		name string
		e    FullEngine
	}{{"twice", e}, {"nil", nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterFullEngine(%s) did not panic", tc.name)
				}
			}()
			RegisterFullEngine(tc.e)
		}()
	}
}
