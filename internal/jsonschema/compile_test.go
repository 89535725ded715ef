package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// conformanceSchema is the inputSchema of the conformance suite's
// json_schema_2020_12_tool, which must be listed exactly as given.
const conformanceSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"}},"additionalProperties":false}`

func TestConformanceToolSchemaIsKeptAndValidates(t *testing.T) {
	s, err := Compile(json.RawMessage(conformanceSchema), &CompileOptions{ObjectRoot: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.JSON()); got != conformanceSchema {
		t.Errorf("JSON() =\n%s\nwant\n%s", got, conformanceSchema)
	}
	listed, err := json.Marshal(struct {
		InputSchema *Schema `json:"inputSchema"`
	}{s})
	if err != nil || string(listed) != `{"inputSchema":`+conformanceSchema+`}` {
		t.Errorf("marshaled in a tool: %s, %v", listed, err)
	}
	if s.fast == nil {
		t.Error("the fast engine should take this schema")
	}
	for _, tc := range []struct {
		instance, wantErr string
	}{
		{`{}`, ""},
		{`{"name":"Ada","address":{"street":"1 Main St","city":"Paris","zip":"75001"}}`, ""},
		{`{"name":"Ada","address":{"city":5}}`, `instance/address/city: expected string, got number 5`},
		{`{"name":"Ada","phone":"555"}`, `instance: unexpected property "phone" (allowed: "name", "address")`},
		{`{"address":"here"}`, `instance/address: expected object, got string "here"`},
	} {
		err := s.Validate(json.RawMessage(tc.instance))
		if got := errString(err); got != tc.wantErr {
			t.Errorf("Validate(%s) = %q, want %q", tc.instance, got, tc.wantErr)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCompileKeepsBytesLessWhitespace(t *testing.T) {
	in := "{\n  \"type\": \"object\",\n  \"x-custom\": {\"keep\": [1, 2.50, \"a b\"]},\n  \"$comment\": \"kept\"\n}"
	s, err := Compile(json.RawMessage(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","x-custom":{"keep":[1,2.50,"a b"]},"$comment":"kept"}`
	if got := string(s.JSON()); got != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
}

func TestCompileDialects(t *testing.T) { bothWays(t, testCompileDialects) }

func testCompileDialects(t *testing.T) {
	for _, tc := range []struct {
		schema  string
		wantErr string
		// instance is valid in 2020-12 but not in draft-07, or the reverse.
		instance  string
		wantValid bool
	}{
		{schema: `{"prefixItems":[{"type":"string"}]}`, instance: `[1]`, wantValid: false},
		{schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}]}`, instance: `[1]`},
		{schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"string"}`, instance: `"a"`, wantValid: true},
		// draft-07 does not know prefixItems: it is ignored.
		{schema: `{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[{"type":"string"}]}`, instance: `[1]`, wantValid: true},
		{schema: `{"$schema":"http://json-schema.org/draft-07/schema","type":"string"}`, instance: `"a"`, wantValid: true},
		{schema: `{"$schema":"https://json-schema.org/draft-07/schema#","type":"string"}`, instance: `1`, wantValid: false},
		// In draft-07, $ref makes its siblings ignored.
		{schema: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":1}`, instance: `"abc"`, wantValid: true},
		{schema: `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":1}`, instance: `"abc"`, wantValid: false},
		{schema: `{"$schema":"http://json-schema.org/draft-04/schema#"}`, wantErr: `unsupported $schema dialect "http://json-schema.org/draft-04/schema#": supported are https://json-schema.org/draft/2020-12/schema (the default) and http://json-schema.org/draft-07/schema#`},
		{schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema"}`, wantErr: "unsupported $schema dialect"},
		{schema: `{"$schema":"https://example.com/my-meta"}`, wantErr: "unsupported $schema dialect"},
		{schema: `{"$schema":7}`, wantErr: `"$schema" must be a string`},
	} {
		s, err := Compile(json.RawMessage(tc.schema), nil)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Compile(%s) error = %v, want %q", tc.schema, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Compile(%s): %v", tc.schema, err)
			continue
		}
		if got := s.Validate(json.RawMessage(tc.instance)) == nil; got != tc.wantValid {
			t.Errorf("%s: Validate(%s) valid = %v, want %v", tc.schema, tc.instance, got, tc.wantValid)
		}
	}
}

func TestCompileRejects(t *testing.T) { bothWays(t, testCompileRejects) }

func testCompileRejects(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 100) + `{}` + strings.Repeat(`}`, 100)
	for _, tc := range []struct {
		name, schema string
		opts         *CompileOptions
		wantErr      string
	}{
		{"not JSON", `{"type":`, nil, "invalid JSON"},
		{"trailing data", `{} {}`, nil, "unexpected data after the top-level value"},
		{"not a schema", `"string"`, nil, "not a valid schema"},
		{"bad type", `{"type":5}`, nil, "not a valid schema: #/type:"},
		{"unknown type", `{"type":"text"}`, nil, "not a valid schema"},
		{"negative minLength", `{"minLength":-1}`, nil, "not a valid schema"},
		{"bad regex", `{"pattern":"("}`, nil, "pattern"},
		{"look-ahead regex", `{"pattern":"^(?=a)"}`, nil, "pattern"},
		{"duplicate member", `{"type":"string","type":"number"}`, nil, `duplicate member "type"`},
		{"object root required", `{"type":"string"}`, &CompileOptions{ObjectRoot: true}, `root must have "type": "object"`},
		{"object root missing type", `{"properties":{}}`, &CompileOptions{ObjectRoot: true}, `root must have "type": "object"`},
		{"network ref", `{"$ref":"https://evil.example/schema.json"}`, nil, `reference to "https://evil.example/schema.json": remote and file references are not fetched`},
		{"relative ref", `{"properties":{"a":{"$ref":"other.json#/x"}}}`, nil, `reference to "other.json": remote and file references are not fetched`},
		{"file ref", `{"$ref":"file:///etc/passwd"}`, nil, `reference to "file:///etc/passwd"`},
		{"ref against $id", `{"$id":"https://a.example/root.json","$ref":"b.json"}`, nil, `reference to "https://a.example/b.json"`},
		{"dangling pointer", `{"$ref":"#/$defs/missing"}`, nil, "jsonschema: "},
		{"self ref", `{"$ref":"#"}`, nil, "$ref cycle: # → #"},
		{"ref cycle", `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, nil, "$ref cycle: #/$defs/a → #/$defs/b → #/$defs/b/allOf/0 → #/$defs/a"},
		{"not cycle", `{"not":{"$ref":"#"}}`, nil, "$ref cycle"},
		{"too big", `{"description":"` + strings.Repeat("x", 100) + `"}`, &CompileOptions{MaxBytes: 64}, "more than the limit of 64"},
		{"too deep", deep, nil, "nesting deeper than 64"},
		{"too deep by option", `{"items":{"items":{}}}`, &CompileOptions{MaxDepth: 2}, "nesting deeper than 2"},
		{"wide anyOf", `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, 300), ",") + `]}`, nil, "more than 256 subschemas"},
		{"exponential anyOf through $defs", exponentialDefs(20), nil, "more than 256 subschemas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(json.RawMessage(tc.schema), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "jsonschema: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// exponentialDefs builds n definitions, each an anyOf of two references
// to the next: small to write, 2^n subschemas to check.
func exponentialDefs(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

func TestCompileErrorsForGracefulDegradation(t *testing.T) {
	bothWays(t, testCompileErrorsForGracefulDegradation)
}

func testCompileErrorsForGracefulDegradation(t *testing.T) {
	_, err := Compile(json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`), nil)
	if !errors.Is(err, ErrRemoteRef) {
		t.Errorf("remote ref: %v does not wrap ErrRemoteRef", err)
	}
	_, err = Compile(json.RawMessage(`{"$schema":"http://json-schema.org/draft-04/schema#"}`), nil)
	if !errors.Is(err, ErrUnsupportedDialect) {
		t.Errorf("draft-04: %v does not wrap ErrUnsupportedDialect", err)
	}
	_, err = Compile(json.RawMessage(`{"type":5}`), nil)
	if errors.Is(err, ErrRemoteRef) || errors.Is(err, ErrUnsupportedDialect) {
		t.Errorf("invalid schema: %v wraps a sentinel", err)
	}
}

func TestCompileLimitsCanBeLifted(t *testing.T) { bothWays(t, testCompileLimitsCanBeLifted) }

func testCompileLimitsCanBeLifted(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 100) + `{}` + strings.Repeat(`}`, 100)
	if _, err := Compile(json.RawMessage(deep), &CompileOptions{MaxDepth: -1}); err != nil {
		t.Errorf("MaxDepth -1: %v", err)
	}
	if _, err := Compile(json.RawMessage(exponentialDefs(8)), &CompileOptions{MaxComposition: 2000}); err != nil {
		t.Errorf("MaxComposition 2000: %v", err)
	}
}

func TestHugeEnumCompilesAndValidatesQuickly(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"enum":[`)
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"v%d"`, i)
	}
	b.WriteString(`]}`)
	s, err := Compile(b.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(json.RawMessage(`"v49999"`)); err != nil {
		t.Error(err)
	}
	err = s.Validate(json.RawMessage(`"nope"`))
	if got := errString(err); !strings.Contains(got, `must be one of "v0", "v1"`) || !strings.Contains(got, "(49990 more); got string \"nope\"") {
		t.Errorf("error = %q", got)
	}
	hit := json.RawMessage(`"v12345"`)
	allocs := testing.AllocsPerRun(100, func() { _ = s.Validate(hit) })
	if allocs != 0 && !raceEnabled {
		t.Errorf("enum lookup allocates %v times", allocs)
	}
}

func TestEnginesChosen(t *testing.T) {
	for _, tc := range []struct {
		schema string
		fast   bool
	}{
		{conformanceSchema, true},
		{`{"$defs":{"n":{"properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{}},"properties":{"a":{"$ref":"#/definitions/a"}}}`, true},
		{`{"format":"email"}`, true},
		{`{"unevaluatedProperties":false}`, false},
		{`{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x"}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#x"}},"allOf":[{"$ref":"#x"}]}`, true},
		{`{"$ref":"#/x","x":{"$anchor":"a"}}`, false},
		{`{"$defs":{"a":{"$id":"https://example.com/a"}}, "$ref":"https://example.com/a"}`, false},
		{`{"$dynamicAnchor":"meta","items":{"$dynamicRef":"#meta"}}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, false},
		{`{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, false},
		// The full engine applies 2019-09's $recursiveRef in 2020-12 too.
		{`{"type":"object","properties":{"x":{"$recursiveRef":"#"}}}`, false},
	} {
		s, err := Compile(json.RawMessage(tc.schema), nil)
		if err != nil {
			t.Errorf("Compile(%s): %v", tc.schema, err)
			continue
		}
		if (s.fast != nil) != tc.fast || (s.full != nil) == tc.fast {
			t.Errorf("%s: fast engine = %v, want %v", tc.schema, s.fast != nil, tc.fast)
		}
		// Without the full engine, what it would have validated is an error.
		_, err = compile(json.RawMessage(tc.schema), nil, false, nil)
		if tc.fast && err != nil || !tc.fast && !errors.Is(err, ErrNeedsFullEngine) {
			t.Errorf("%s without the full engine: %v", tc.schema, err)
		}
	}
	if s, _ := Compile(json.RawMessage(`{"format":"email"}`), &CompileOptions{AssertFormat: true}); s == nil || s.fast != nil {
		t.Error("AssertFormat should hand the schema to the full engine")
	}
}

func TestMustCompilePanics(t *testing.T) { bothWays(t, testMustCompilePanics) }

func testMustCompilePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	MustCompile(`{"type":5}`)
}
