package jsonschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Anchors (anchors.go) are held to the full engine's verdicts directly:
// the library alone, not Compile with it linked, which also runs the
// fast engine's own checks.

const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`

// anchorCases are schemas declaring and referring to anchors, with what
// Compile does without the full engine: "fast" compiles, "invalid" is a
// schema error, "full" needs the full engine.
var anchorCases = []struct{ schema, want string }{
	// Referenced and unreferenced, wherever a subschema may be.
	{`{"$ref":"#foo","$defs":{"A":{"$anchor":"foo","type":"integer"}}}`, "fast"},
	{`{"$defs":{"A":{"$anchor":"foo","type":"integer"}},"type":"string"}`, "fast"},
	{`{"$anchor":"root","type":"object","properties":{"next":{"$ref":"#root"}}}`, "fast"},
	{`{"properties":{"a":{"$anchor":"pa","type":"integer"},"b":{"$ref":"#pa"}}}`, "fast"},
	{`{"patternProperties":{"^x":{"$anchor":"pp","minLength":2}},"properties":{"b":{"$ref":"#pp"}}}`, "fast"},
	{`{"additionalProperties":{"$anchor":"ap","type":"integer"},"propertyNames":{"$anchor":"pn","maxLength":1},"properties":{"b":{"$ref":"#ap"}}}`, "fast"},
	{`{"items":{"$anchor":"it","type":"string"},"properties":{"a":{"$ref":"#it"}}}`, "fast"},
	{`{"prefixItems":[{"$anchor":"p0","minimum":3}],"contains":{"$ref":"#p0"}}`, "fast"},
	{`{"contains":{"$anchor":"c","type":"string"},"properties":{"a":{"$ref":"#c"}}}`, "fast"},
	{`{"allOf":[{"$anchor":"al","required":["a"]}],"properties":{"n":{"$ref":"#al"}}}`, "fast"},
	{`{"anyOf":[{"$anchor":"an","type":"array"},{"type":"null"}],"oneOf":[{"$anchor":"on","type":"array"},{"$ref":"#an"}]}`, "fast"},
	{`{"not":{"$anchor":"no","type":"string"},"if":{"$anchor":"if","type":"object"},"then":{"$anchor":"th","required":["a"]},"else":{"$anchor":"el","$ref":"#no"}}`, "fast"},
	{`{"dependentSchemas":{"a":{"$anchor":"ds","required":["b"]}},"properties":{"n":{"$ref":"#ds"}}}`, "fast"},
	{`{"contentSchema":{"$anchor":"cs","type":"integer"},"$ref":"#cs"}`, "fast"},
	{`{"definitions":{"d":{"$anchor":"d","type":"null"}},"$ref":"#d"}`, "fast"},
	{`{"dependencies":{"a":{"$anchor":"dep","type":"object"}},"$ref":"#dep"}`, "full"},
	{`{"additionalItems":{"$anchor":"ai","type":"string"},"$ref":"#ai"}`, "fast"},
	{`{"$defs":{"a":{"$defs":{"b":{"$anchor":"deep","type":"integer"}}}},"items":{"$ref":"#deep"}}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"_a-b.c9","type":"integer"}},"$ref":"#_a-b.c9"}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"foo","type":"integer"}},"$ref":"#f%6Fo"}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"a","$ref":"#/$defs/b"},"b":{"type":"integer"}},"$ref":"#a"}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"a","type":"integer"}},"$ref":"#a","properties":{"x":{"$ref":"#/$defs/a"}}}`, "fast"},
	// With $id at the root.
	{`{"$id":"https://example.com/s.json","$defs":{"a":{"$anchor":"a","type":"integer"}},"$ref":"#a"}`, "fast"},
	{`{"$id":"https://example.com/s.json","$defs":{"a":{"$anchor":"a","type":"integer"}},"$ref":"s.json#a"}`, "full"},
	{`{"$id":"https://example.com/s.json","$anchor":"s","properties":{"n":{"$ref":"#s"}}}`, "fast"},
	// Not anchors: in values that are not subschemas.
	{`{"enum":[{"$anchor":"x"}]}`, "fast"},
	{`{"x-keyword":{"$anchor":"x"},"$defs":{"a":{"$anchor":"x","type":"integer"}},"$ref":"#x"}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"x"}},"const":{"$anchor":"x"}}`, "fast"},
	{`{"$ref":"#x","enum":[{"$anchor":"x"}]}`, "invalid"},
	{`{"$ref":"#x","x-keyword":{"$anchor":"x"}}`, "invalid"},
	// ... unless a reference by JSON pointer leads there.
	{`{"$ref":"#/x","x":{"$anchor":"a"}}`, "full"},
	{`{"allOf":[{"$ref":"#/x"},{"$ref":"#a"}],"x":{"properties":{"p":{"$anchor":"a","type":"integer"}}}}`, "full"},
	{`{"$ref":"#/$defs/a/enum/0","$defs":{"a":{"enum":[{"$anchor":"e"}]}}}`, "full"},
	{`{"$ref":"#a","x":{"$anchor":"a"},"$defs":{"u":{"$ref":"#/x"}}}`, "full"},
	// Duplicates.
	{`{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, "invalid"},
	{`{"$anchor":"x","$defs":{"a":{"$anchor":"x"}}}`, "invalid"},
	{`{"items":{"$anchor":"x"},"properties":{"a":{"$anchor":"x"}}}`, "invalid"},
	{`{"allOf":[{"$anchor":"x"},{"not":{"$anchor":"x"}}]}`, "invalid"},
	{`{"additionalItems":{"$anchor":"x"},"$defs":{"a":{"$anchor":"x"}}}`, "invalid"},
	{`{"definitions":{"a":{"$anchor":"x"}},"dependencies":{"a":{"$anchor":"x"}}}`, "invalid"},
	{`{"$defs":{"a":{"$anchor":"x"}},"enum":[{"$anchor":"x"}]}`, "fast"},
	{`{"additionalItems":{"$anchor":"a","properties":{"b":{"$anchor":"a"}}}}`, "invalid"},
	{`{"additionalItems":{"$anchor":"","items":{"$anchor":""}}}`, "invalid"},
	// Invalid names, and values that are not strings.
	{`{"$anchor":"1a"}`, "invalid"},
	{`{"$defs":{"a":{"$anchor":"a b"}}}`, "invalid"},
	{`{"properties":{"p":{"$anchor":"-x"}}}`, "invalid"},
	{`{"items":{"$anchor":""}}`, "invalid"},
	{`{"$anchor":"a#b"}`, "invalid"},
	{`{"$anchor":"a/b"}`, "invalid"},
	{`{"$anchor":"é"}`, "invalid"},
	{`{"$anchor":"a\n"}`, "invalid"},
	{`{"$anchor":5}`, "invalid"},
	{`{"additionalItems":{"$anchor":"1bad"},"$ref":"#1bad"}`, "fast"},
	{`{"enum":[{"$anchor":"1bad"}]}`, "fast"},
	// References to unknown anchors.
	{`{"$ref":"#nope"}`, "invalid"},
	{`{"$defs":{"a":{"$anchor":"yes"}},"$ref":"#nope"}`, "invalid"},
	{`{"properties":{"a":{"$ref":"#nope"}}}`, "invalid"},
	{`{"$defs":{"a":{"$ref":"#nope"}}}`, "fast"},
	{`{"$defs":{"a":{"$anchor":"foo"}},"$ref":"#foo/bar"}`, "invalid"},
	{`{"$defs":{"a":{"$anchor":"foo"}},"$ref":"#FOO"}`, "invalid"},
	// Cycles and composition through anchors: the fast engine's own
	// limits, which hold with the full engine too.
	{`{"$defs":{"a":{"$anchor":"a","$ref":"#a"}},"$ref":"#a"}`, "invalid"},
	{`{"$defs":{"a":{"$anchor":"a","allOf":[{"$ref":"#b"}]},"b":{"$anchor":"b","anyOf":[{"$ref":"#a"}]}},"$ref":"#a"}`, "invalid"},
	{`{"$anchor":"r","properties":{"a":{"$ref":"#r"}},"items":{"$ref":"#r"}}`, "fast"},
	// Still the full engine's.
	{`{"$dynamicAnchor":"x","items":{"$dynamicRef":"#x"}}`, "full"},
	{`{"$anchor":"x","$dynamicAnchor":"x"}`, "full"},
	{`{"$defs":{"a":{"$id":"https://example.com/a","$anchor":"x"}},"$ref":"#x"}`, "full"},
	{`{"$defs":{"a":{"$id":"#"}}}`, "full"},
	{`{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x","unevaluatedProperties":false}`, "full"},
	// Draft-07: "$id": "#name", ignored beside a "$ref"; "$anchor" is not a
	// keyword there.
	{`{` + d7 + `"definitions":{"A":{"$id":"#foo","type":"integer"}},"allOf":[{"$ref":"#foo"}]}`, "fast"},
	{`{` + d7 + `"definitions":{"A":{"$id":"#foo","type":"integer"}},"type":"string"}`, "fast"},
	{`{` + d7 + `"$id":"http://example.com/r.json#root","properties":{"n":{"$ref":"#root"}}}`, "fast"},
	{`{` + d7 + `"$id":"#root","properties":{"n":{"$ref":"#root"}}}`, "fast"},
	{`{` + d7 + `"properties":{"a":{"$id":"#a","type":"integer"},"b":{"$ref":"#a"}}}`, "fast"},
	{`{` + d7 + `"items":[{"$id":"#i0","type":"integer"}],"additionalItems":{"$ref":"#i0"}}`, "full"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#a%20b","type":"integer"}},"allOf":[{"$ref":"#a%20b"}]}`, "fast"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#1a","type":"integer"}},"allOf":[{"$ref":"#1a"}]}`, "fast"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#/definitions/b"},"b":{"type":"integer"}},"allOf":[{"$ref":"#/definitions/a"}]}`, "fast"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#"}},"allOf":[{"$ref":"#/definitions/a"}]}`, "fast"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#foo","$ref":"#/definitions/b"},"b":{"type":"integer"}},"allOf":[{"$ref":"#foo"}]}`, "invalid"},
	{`{` + d7 + `"$id":"#a","definitions":{"b":{"$id":"#a"}}}`, "invalid"},
	{`{` + d7 + `"$id":"#a","$ref":"#/definitions/b","definitions":{"b":{"$id":"#a"}}}`, "fast"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#x"},"b":{"$id":"#x"}}}`, "invalid"},
	{`{` + d7 + `"definitions":{"a":{"$anchor":"x"}},"allOf":[{"$ref":"#x"}]}`, "invalid"},
	{`{` + d7 + `"definitions":{"a":{"$anchor":"1 x"}}}`, "fast"},
	{`{` + d7 + `"$defs":{"a":{"$id":"#x"}},"allOf":[{"$ref":"#x"}]}`, "invalid"},
	{`{` + d7 + `"$defs":{"a":{"$id":"#x","type":"integer"}},"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#x"}]}`, "full"},
	{`{` + d7 + `"definitions":{"a":{"$id":"#a%zz"}}}`, "invalid"},
	{`{` + d7 + `"definitions":{"a":{"$id":"other.json#a"}}}`, "full"},
	{`{` + d7 + `"allOf":[{"$ref":"#nope"}]}`, "invalid"},
}

// anchorInstances are validated against every anchor case that compiles.
var anchorInstances = []string{
	`null`, `1`, `5`, `"a"`, `"xyz"`, `[]`, `[1,"a"]`, `[5,5]`, `["a","b"]`, `{}`, `{"a":1}`, `{"a":"x","b":2}`,
	`{"b":"x"}`, `{"b":1}`, `{"n":{"a":1}}`, `{"n":{}}`, `{"next":{"next":{}}}`, `{"next":5}`, `{"xa":"ab","b":"a"}`,
	`{"a":[1],"b":[]}`,
}

func TestAnchorsAgreeWithTheFullEngine(t *testing.T) {
	for _, tc := range anchorCases {
		got := compareAnchorVerdicts(t, []byte(tc.schema), nil)
		if got != tc.want {
			_, err := compile([]byte(tc.schema), nil, false, nil)
			t.Errorf("%s: %s, want %s (%v)", tc.schema, got, tc.want, err)
		}
	}
}

// compareAnchorVerdicts compiles schema with the full engine alone and
// without it, and reports a disagreement on the schema or, when both
// compile, on anchorInstances. It returns what Compile does without the
// full engine: "fast", "invalid" or "full".
func compareAnchorVerdicts(t *testing.T, schema []byte, opts *CompileOptions) string {
	t.Helper()
	full, ferr := compileFull(t, schema, false)
	s, berr := compile(schema, opts, false, nil)
	switch {
	case errors.Is(berr, ErrNeedsFullEngine):
		return "full"
	case berr != nil:
		// The fast engine's own limits on composition hold with the full
		// engine linked too.
		ours := strings.Contains(berr.Error(), "$ref cycle") || strings.Contains(berr.Error(), "too complex")
		if ferr == nil && !ours && knownCheckDifference(schema) == "" {
			t.Errorf("%s: only the built-in check rejects it: %v", schema, berr)
		}
		return "invalid"
	case ferr != nil:
		if knownCheckDifference(schema) == "" {
			t.Errorf("%s: only the full engine rejects it: %v", schema, ferr)
		}
		return "fast"
	}
	for _, instance := range anchorInstances {
		verr := s.Validate(json.RawMessage(instance))
		if verr != nil && strings.Contains(verr.Error(), "validation stopped") {
			continue
		}
		if ferr := full.Validate([]byte(instance)); (verr == nil) != (ferr == nil) {
			t.Errorf("engines disagree on %s against %s\nfast: %v\nfull: %v", instance, schema, verr, ferr)
		}
	}
	return "fast"
}

// The composition limit counts through anchors as through pointers.
func TestCompositionThroughAnchors(t *testing.T) {
	const schema = `{"$defs":{"a":{"$anchor":"a","anyOf":[{"$ref":"#b"},{"$ref":"#b"}]},"b":{"$anchor":"b","anyOf":[{"$ref":"#c"},{"$ref":"#c"}]},"c":{"$anchor":"c","type":"integer"}},"$ref":"#a"}`
	bothWays(t, func(t *testing.T) {
		if _, err := Compile(json.RawMessage(schema), &CompileOptions{MaxComposition: 4}); err == nil || !strings.Contains(err.Error(), "too complex") {
			t.Errorf("limit 4: %v", err)
		}
		s, err := Compile(json.RawMessage(schema), &CompileOptions{MaxComposition: 16})
		if err != nil || s.fast == nil {
			t.Fatalf("limit 16: %v", err)
		}
		if s.Validate(json.RawMessage(`1`)) != nil || s.Validate(json.RawMessage(`"a"`)) == nil {
			t.Error("wrong verdicts")
		}
	})
}

// conformanceToolSchema is the inputSchema of the MCP conformance suite's
// json_schema_2020_12_tool (conformance/everything-server/tools.go),
// which declares an $anchor.
const conformanceToolSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
	`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

func TestConformanceToolSchemaWithoutTheFullEngine(t *testing.T) {
	withoutFullEngine(t)
	for _, schema := range []string{conformanceToolSchema, strings.Replace(conformanceToolSchema, `"#/$defs/address"`, `"#addressDef"`, 1)} {
		s, err := Compile(json.RawMessage(schema), &CompileOptions{ObjectRoot: true})
		if err != nil || s.fast == nil {
			t.Fatalf("Compile: %v", err)
		}
		if string(s.JSON()) != schema {
			t.Errorf("JSON() = %s", s.JSON())
		}
		for _, tc := range []struct {
			instance string
			valid    bool
		}{
			{`{"name":"Ada","contactMethod":"email","email":"ada@example.com"}`, true},
			{`{"name":"Ada","contactMethod":"phone","phone":"555","address":{"street":"1 Main","city":"Paris"}}`, true},
			{`{"name":"Ada","contactMethod":"phone","email":"ada@example.com"}`, false},
			{`{"name":"Ada","email":"a","address":{"city":5}}`, false},
			{`{"name":"Ada","email":"a","extra":1}`, false},
		} {
			if err := s.Validate(json.RawMessage(tc.instance)); (err == nil) != tc.valid {
				t.Errorf("Validate(%s) = %v, want valid %v", tc.instance, err, tc.valid)
			}
		}
	}
}
