package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Without the full engine, Compile checks schemas against meta-schemas of
// its own (meta.go). These tests hold that check to the full engine's
// verdicts: a schema is valid for one exactly when it is for the other.

// knownCheckDifference says why the built-in check may disagree with the
// full engine on a schema, or "" if it must not. Every exception is
// listed here, with its reason.
func knownCheckDifference(schema []byte) string {
	var doc any
	if json.Unmarshal(schema, &doc) != nil {
		return ""
	}
	root, _ := doc.(map[string]any)
	draft7 := root != nil && strings.Contains(fmt.Sprint(root["$schema"]), "draft-07")
	why := ""
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["$ref"]; ok && draft7 {
				for _, k := range []string{"const", "contains", "propertyNames", "if", "then", "else"} {
					if _, ok := v[k]; ok {
						// The package documentation tells of it: the full
						// engine compiles these keywords beside a $ref in
						// draft-07, where they are to be ignored, so a bad
						// reference or schema under them is an error to it.
						why = "draft-07 keywords beside a $ref"
					}
				}
			}
			if _, ok := v["additionalItems"].(map[string]any); ok && !draft7 {
				// The full engine looks for "$schema" and "$id" in the
				// places subschemas had in every draft, additionalItems
				// included, where 2020-12 has none: a "$schema" it does not
				// know there is an error to it.
				why = "additionalItems in 2020-12"
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	if id, ok := root["$id"].(string); ok && opaqueSlashID.MatchString(id) {
		// The full engine rewrites an $id like "a:/b" to "a:///b" and then
		// takes "#" for a reference to that other document, which it
		// refuses to fetch; "#" is the document itself (RFC 3986 §5).
		why = `a root $id of the form "scheme:/path"`
	}
	return why
}

// opaqueSlashID matches a URI whose scheme is followed by one slash.
var opaqueSlashID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:/([^/]|$)`)

// compareVerdicts compiles a schema with the full engine and without it, and
// reports a disagreement. Schemas that need the full engine are skipped
// (reported as skipped).
func compareVerdicts(t *testing.T, schema []byte, opts *CompileOptions) (skipped bool) {
	t.Helper()
	_, ferr := compile(schema, opts, false, theFullEngine(t))
	_, berr := compile(schema, opts, false, nil)
	if errors.Is(berr, ErrNeedsFullEngine) {
		return true
	}
	// Compile runs the fast engine with the full engine linked too, so an
	// anchor it wrongly refuses would be refused both ways: hold those
	// refusals to the full engine alone.
	if berr != nil && (strings.Contains(berr.Error(), "is declared twice") || strings.Contains(berr.Error(), "no subschema declares the anchor")) {
		if _, err := compileFull(t, schema, false); err == nil {
			t.Errorf("only the built-in check rejects %s: %v", schema, berr)
		}
	}
	// Both may reject a schema for different reasons (the full engine
	// tries to fetch the meta-schema a nested "$schema" names, where the
	// built-in check knows only the drafts'), but the built-in check must
	// not call a reference remote if the full engine does not.
	agree := (ferr == nil) == (berr == nil) && (!errors.Is(berr, ErrRemoteRef) || errors.Is(ferr, ErrRemoteRef))
	if !agree && knownCheckDifference(schema) == "" {
		t.Errorf("the checks disagree on %s\nfull engine: %v\nbuilt-in:    %v", schema, ferr, berr)
	}
	return false
}

// schemaCheckCases are schemas, valid and not, that probe every rule of
// the meta-schemas: keyword types, the formats asserted, anchors, $id.
var schemaCheckCases = []string{
	`true`, `false`, `{}`, `5`, `"string"`, `null`, `[]`,
	`{"type":"strin"}`, `{"type":[]}`, `{"type":["string","string"]}`, `{"type":["string","null"]}`, `{"type":5}`,
	`{"enum":[]}`, `{"enum":[1,1]}`, `{"enum":5}`, `{"const":{"a":[1]}}`,
	`{"multipleOf":0}`, `{"multipleOf":-1}`, `{"multipleOf":0.5}`, `{"minimum":"1"}`, `{"exclusiveMaximum":true}`,
	`{"minLength":1.0}`, `{"minLength":1.5}`, `{"maxLength":-1}`, `{"maxItems":1e2}`, `{"minContains":0}`, `{"maxProperties":"2"}`,
	`{"pattern":"("}`, `{"pattern":"^(?=a)"}`, `{"pattern":"\\p{L}"}`, `{"pattern":"\\d+"}`, `{"pattern":5}`,
	`{"patternProperties":{"(":{}}}`, `{"patternProperties":{"^a":5}}`, `{"patternProperties":{"^a":{"type":5}}}`,
	`{"required":["a","a"]}`, `{"required":[1]}`, `{"required":[]}`, `{"required":"a"}`,
	`{"dependentRequired":{"a":["b","b"]}}`, `{"dependentRequired":{"a":"b"}}`, `{"dependentSchemas":{"a":5}}`,
	`{"dependencies":{"a":["b"],"c":{"type":"string"}}}`, `{"dependencies":{"a":5}}`, `{"dependencies":{"a":["b","b"]}}`,
	`{"definitions":{"a":{"type":5}}}`, `{"$defs":{"a":{"type":5}}}`, `{"$defs":{"a":5}}`, `{"$defs":[]}`,
	`{"allOf":[]}`, `{"anyOf":{}}`, `{"oneOf":[5]}`, `{"not":5}`, `{"if":[]}`, `{"then":{"minimum":"x"}}`,
	`{"items":[{}]}`, `{"items":5}`, `{"prefixItems":[]}`, `{"prefixItems":[{"type":"string"}],"items":false}`,
	`{"additionalItems":5}`, `{"contains":5}`, `{"propertyNames":{"pattern":"^a"}}`, `{"properties":{"a":5}}`,
	`{"unevaluatedProperties":5}`, `{"unevaluatedItems":{"type":5}}`, `{"contentSchema":5}`, `{"contentEncoding":5}`,
	`{"title":5}`, `{"description":[]}`, `{"deprecated":"yes"}`, `{"readOnly":1}`, `{"examples":{}}`, `{"format":5}`, `{"format":"unknown"}`,
	`{"$comment":5}`, `{"$schema":"relative"}`, `{"$schema":5}`,
	`{"$id":"https://example.com/s.json"}`, `{"$id":"s.json"}`, `{"$id":"#foo"}`, `{"$id":"https://example.com/s#"}`, `{"$id":5}`,
	`{"$id":"https://example.com/a b"}`, `{"$id":"http://[::1]/s"}`, `{"$id":"http://[fe80::1%25en0]/s"}`, `{"$id":"http://::1/s"}`, `{"$id":"a\\b"}`,
	`{"$ref":"#"}`, `{"$ref":"#/$defs/a","$defs":{"a":{}}}`, `{"$ref":"%"}`, `{"$ref":"a\\b"}`, `{"$ref":5}`, `{"$ref":"http://[::1"}`,
	`{"$ref":"https://example.com/s.json"}`, `{"$ref":"other.json#/x"}`, `{"$ref":"file:///etc/passwd"}`, `{"$ref":"#/$defs/missing"}`,
	`{"$id":"https://example.com/root.json","$ref":"root.json#/$defs/a","$defs":{"a":{}}}`,
	`{"$anchor":"a"}`, `{"$anchor":"1a"}`, `{"$anchor":"a b"}`, `{"$anchor":5}`, `{"$dynamicAnchor":"-x"}`, `{"$dynamicRef":"#meta"}`,
	`{"$recursiveAnchor":true}`, `{"$recursiveAnchor":"a"}`, `{"$recursiveRef":"#"}`,
	`{"$vocabulary":{"https://example.com/v":true}}`, `{"$vocabulary":{"v":true}}`, `{"$vocabulary":{"https://example.com/v":1}}`,
	`{"x-custom":{"type":5},"type":"object"}`, `{"properties":{"type":{"type":"string"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}],"additionalItems":{"type":5}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","enum":[]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","format":"regex","pattern":"("}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}},"type":5}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$id":"#foo"}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":5,"unevaluatedProperties":5,"$anchor":"1"}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b","b"]}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$comment":5}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","contentSchema":5,"$defs":5}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}},"contains":{"$ref":"#/nope"}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}},"if":{"$ref":"#/x"},"x":{"type":5}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/a","definitions":{"a":{}},"items":{"$ref":"#/nope"}}`,
	`{"additionalItems":{"$schema":"https://example.com/s"}}`,
	`{"additionalItems":{"$id":"https://example.com/s"}}`,
	`{"$ref":"#/x","x":{"type":5}}`, `{"$ref":"#/x","x":{"type":"string"}}`, `{"$ref":"#/x","x":5}`, `{"$ref":"#/x","x":{"$ref":"#/y"},"y":{"minimum":"0"}}`,
	`{"$ref":"#/properties","properties":{"type":{"type":"string"}}}`, `{"$ref":"#/properties","properties":{"type":{"enum":[1]}}}`,
	`{"$ref":"#/$defs/a/enum/0","$defs":{"a":{"enum":[{"type":5}]}}}`, `{"$ref":"#/$defs/a/enum/0","$defs":{"a":{"enum":[{"type":"string"}]}}}`,
	`{"$ref":"#/$defs/a","$defs":{"a":{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}]}}}`,
	`{"$defs":{"a":{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true}}}`,
	`{"$defs":{"a":{"$anchor":"x"},"b":{"$anchor":"x"}}}`, `{"$defs":{"a":{"$id":"a.json"},"b":{"$id":"a.json"}}}`,
	`{"enum":[{"$anchor":"x"}]}`, `{"$recursiveRef":"#"}`, `{"$defs":{"a":{"$recursiveRef":"https://example.com/x"}}}`,
	`{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x"}`, `{"$defs":{"a":{"$anchor":"x"}},"$ref":"#y"}`, `{"$ref":"#x","enum":[{"$anchor":"x"}]}`,
	`{"items":{"$anchor":"x"},"properties":{"a":{"$anchor":"x"}}}`, `{"additionalItems":{"$anchor":"x"},"$defs":{"a":{"$anchor":"x"}}}`,
	`{"additionalItems":{"$anchor":"1"},"$ref":"#1"}`, `{"$anchor":"a","$ref":"#a"}`, `{"$anchor":"a","properties":{"a":{"$ref":"#a"}}}`,
	`{"$id":"https://example.com/s.json","$anchor":"a","items":{"$ref":"#a"}}`, `{"$ref":"#/x","x":{"$anchor":"a"}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#x"}},"allOf":[{"$ref":"#x"}]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$id":"#x","definitions":{"a":{"$id":"#x"}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#x","$ref":"#"}},"allOf":[{"$ref":"#x"}]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","$defs":{"a":{"$id":"#x"}},"allOf":[{"$ref":"#x"}]}`,
}

func TestBuiltinCheckAgreesWithFullEngine(t *testing.T) {
	corpus := append([]string{conformanceSchema, conformanceToolSchema, benchSchema, mediumSchema}, schemaCheckCases...)
	for _, tc := range anchorCases {
		corpus = append(corpus, tc.schema)
	}
	for _, tc := range validateCases {
		corpus = append(corpus, tc.schema)
	}
	for _, s := range fuzzSeeds {
		corpus = append(corpus, s[0])
	}
	n := 3000
	if testing.Short() {
		n = 300
	}
	g := &schemaGen{r: rand.New(rand.NewPCG(3, 4))}
	m := &mutator{r: rand.New(rand.NewPCG(5, 6))}
	for range n {
		schema := g.root()
		corpus = append(corpus, schema, m.mutate(schema), m.mutate(m.mutate(schema)))
	}
	skipped, invalid := 0, 0
	for _, schema := range corpus {
		if compareVerdicts(t, []byte(schema), nil) {
			skipped++
		} else if _, err := compile([]byte(schema), nil, false, nil); err != nil {
			invalid++
		}
	}
	t.Logf("%d schemas: %d invalid, %d need the full engine", len(corpus), invalid, skipped)
}

// TestBuiltinCheckAgreesOnTheOfficialSuite compares the checks on every
// schema of the JSON-Schema-Test-Suite (see TestOfficialSuite).
func TestBuiltinCheckAgreesOnTheOfficialSuite(t *testing.T) {
	dir := os.Getenv("JSON_SCHEMA_TEST_SUITE")
	if dir == "" {
		t.Skip("JSON_SCHEMA_TEST_SUITE not set")
	}
	for _, draft := range []string{"draft2020-12", "draft7"} {
		files, _ := filepath.Glob(filepath.Join(dir, draft, "*.json"))
		total, skipped := 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var groups []struct {
				Schema json.RawMessage `json:"schema"`
			}
			if err := json.Unmarshal(data, &groups); err != nil {
				t.Fatal(f, err)
			}
			for _, g := range groups {
				schema := g.Schema
				if draft == "draft7" {
					schema = withDialect(schema, draft7URI)
				}
				total++
				if compareVerdicts(t, schema, nil) {
					skipped++
				}
			}
		}
		t.Logf("%s: %d schemas, %d need the full engine", draft, total, skipped)
	}
}

// A mutator breaks schemas: it replaces a value somewhere in the document,
// or adds a keyword, with values chosen to trip the meta-schemas.
type mutator struct{ r *rand.Rand }

var (
	mutationKeywords = []string{
		"$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
		"prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
		"dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
		"unevaluatedItems", "unevaluatedProperties", "type", "const", "enum", "multipleOf", "maximum",
		"exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
		"minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required",
		"dependentRequired", "title", "description", "default", "deprecated", "readOnly", "writeOnly",
		"examples", "format", "contentEncoding", "contentMediaType", "contentSchema", "definitions",
		"dependencies", "$recursiveAnchor", "$recursiveRef", "additionalItems", "x-unknown",
	}
	mutationValues = []string{
		`5`, `-1`, `0`, `1.5`, `1.0`, `1e2`, `"x"`, `""`, `"("`, `"^a"`, `"a\\b"`, `"http://[::1"`,
		`"http://[fe80::1%25en0]/"`, `"http://::1/"`, `"#"`, `"#/$defs/x"`, `"#foo"`, `"https://example.com/s"`,
		`"other.json"`, `"#/definitions/x"`, `"string"`, `"strin"`, `"a-b.c"`, `"1abc"`, `"#a#b"`, `"%zz"`,
		`["string","string"]`, `["string","null"]`, `[]`, `["a","a"]`, `["a"]`, `[1]`, `[{}]`, `[true,{"type":5}]`,
		`{}`, `{"type":"string"}`, `{"a":["b"]}`, `{"(":{}}`, `{"a":5}`, `{"https://example.com/v":true}`,
		`{"x":1}`, `true`, `false`, `null`, `"#ax"`, `"#ay"`, `"ax"`, `"#/definitions/x"`,
	}
)

func (m *mutator) mutate(schema string) string {
	var doc any
	if json.Unmarshal([]byte(schema), &doc) != nil {
		return schema
	}
	var spots []func(any)
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		spots = append(spots, set)
		switch v := v.(type) {
		case map[string]any:
			spots = append(spots, func(x any) { v[m.pick(mutationKeywords)] = x })
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k], func(x any) { v[k] = x })
			}
		case []any:
			for i, e := range v {
				walk(e, func(x any) { v[i] = x })
			}
		}
	}
	walk(doc, func(x any) { doc = x })
	var val any
	_ = json.Unmarshal([]byte(m.pick(mutationValues)), &val)
	spots[m.r.IntN(len(spots))](val)
	out, _ := json.Marshal(doc)
	return strings.ReplaceAll(string(out), `\u0026`, `&`)
}

func (m *mutator) pick(options []string) string { return options[m.r.IntN(len(options))] }
