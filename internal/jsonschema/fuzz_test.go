package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var fuzzSeeds = [][2]string{
	{conformanceSchema, `{"name":"Ada","address":{"street":"1 Main","city":"Paris"}}`},
	{benchSchema, `{"text":"hello world"}`},
	{benchSchema, `{"text":5,"x":[1,{"a":null}]}`},
	{`{"enum":[1,"a",{"b":[true,null]},[2.0]]}`, `{"b":[true,null]}`},
	{`{"const":{"a":1,"b":2}}`, `{"b":2.0,"a":1e0}`},
	{`{"type":"array","prefixItems":[{"type":"integer"}],"items":false,"uniqueItems":true}`, `[1,1]`},
	{`{"anyOf":[{"type":"string","pattern":"^a"},{"type":"number","multipleOf":0.5}],"not":{"const":"ab"}}`, `1.5`},
	{`{"oneOf":[{"minimum":1},{"maximum":5}]}`, `3`},
	{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"minProperties":2}}`, `{"a":1}`},
	{`{"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"maxLength":3},"dependentRequired":{"a":["b"]}}`, `{"x-1":"v","a":0}`},
	{`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"next":{"next":{}}}`},
	{`{"contains":{"type":"string"},"minContains":2,"maxContains":3}`, `["a",1,"b"]`},
	{`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"string"},"additionalItems":false,"maxLength":2}`, `["a","bcd"]`},
	{`{"unevaluatedProperties":false,"allOf":[{"properties":{"a":{}}}]}`, `{"a":1,"b":2}`},
	{`{"type":"string","minLength":2,"maxLength":3}`, `"\u00e9\ud83d\ude00"`},
}

// FuzzCompileValidate compiles arbitrary schemas and validates arbitrary
// instances: nothing may panic or hang, every error must be readable,
// Compile without the full engine must accept the schemas the full engine
// accepts and no others (unless it asks for the full engine), and
// whenever the fast engine takes a schema, the full engine must reach the
// same verdict on the instance.
func FuzzCompileValidate(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	for _, s := range schemaCheckCases {
		f.Add([]byte(s), []byte(`{}`))
	}
	for _, tc := range anchorCases {
		f.Add([]byte(tc.schema), []byte(`{"a":1,"b":"x"}`))
	}
	opts := &CompileOptions{MaxBytes: 8 << 10, MaxDepth: 16, MaxComposition: 64, MaxSteps: 20000}
	f.Fuzz(func(t *testing.T, schema, instance []byte) {
		compareVerdicts(t, schema, opts)
		s, err := Compile(schema, opts)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "jsonschema: ") {
				t.Fatalf("compile error without prefix: %v", err)
			}
			return
		}
		var compact bytes.Buffer
		if json.Compact(&compact, schema) != nil || !bytes.Equal(compact.Bytes(), s.JSON()) {
			t.Fatalf("JSON() = %s, want the compacted input", s.JSON())
		}
		verr := s.Validate(instance)
		if verr != nil {
			var ve *ValidationError
			if !errors.As(verr, &ve) || len(ve.Violations) == 0 {
				t.Fatalf("Validate returned %#v", verr)
			}
			_ = ve.Error()
		}
		// Instances with duplicate member names are out of the domain: the
		// JSON-RPC decoder refuses them before any schema sees them, and
		// the full engine keeps only one of the values.
		if s.fast == nil || checkSyntax(instance, MaxInstanceDepth) != nil || hasDuplicateMembers(instance) ||
			(verr != nil && strings.Contains(verr.Error(), "validation stopped")) {
			return
		}
		full, err := compileFull(t, s.raw, false)
		if err != nil {
			t.Fatalf("full engine rejects a compiled schema: %v", err)
		}
		ferr := full.Validate(instance)
		if ferr != nil && strings.Contains(ferr.Error(), "is too large to validate") {
			return
		}
		if (ferr == nil) != (verr == nil) {
			t.Fatalf("engines disagree on %s against %s:\nfast: %v\nfull: %v", instance, s.JSON(), verr, ferr)
		}
	})
}

// hasDuplicateMembers reports whether the well-formed JSON document d has
// an object with two members of the same name.
func hasDuplicateMembers(d []byte) bool {
	_, err := parseTree(d)
	return err != nil && strings.Contains(err.Error(), "duplicate member")
}
