package jsonschema

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// validateCases pair a schema and an instance with the exact message a
// model would read ("" for valid). They run against both engines where
// the schema allows, so the engines agree on verdicts; messages are the
// fast engine's.
var validateCases = []struct {
	name, schema, instance, want string
}{
	// The example of the design brief.
	{"brief example", `{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text","count"]}`,
		`{"text":5}`, `instance/text: expected string, got number 5; instance: missing required property "count"`},

	{"type ok", `{"type":"string"}`, `"a"`, ""},
	{"type list", `{"type":["string","null"]}`, `true`, `instance: expected string or null, got boolean true`},
	{"integer accepts 1.0", `{"type":"integer"}`, `1.0`, ""},
	{"integer accepts 1e3", `{"type":"integer"}`, `1e3`, ""},
	{"integer rejects 1.5", `{"type":"integer"}`, `1.5`, `instance: expected integer, got number 1.5`},
	{"number accepts integer", `{"type":"number"}`, `-0`, ""},
	{"true schema", `true`, `{"anything":[1]}`, ""},
	{"false schema", `false`, `1`, `instance: no value is allowed here`},
	{"empty schema", `{}`, `null`, ""},

	{"enum", `{"enum":["red","green"]}`, `"blue"`, `instance: must be one of "red", "green"; got string "blue"`},
	{"enum numbers compare by value", `{"enum":[1,2.5]}`, `1.0`, ""},
	{"enum escaped string", `{"enum":["é"]}`, `"\u00e9"`, ""},
	{"enum object order", `{"enum":[{"a":1,"b":[true]}]}`, `{"b":[true],"a":1}`, ""},
	{"enum distinguishes types", `{"enum":[1]}`, `"1"`, `instance: must be one of 1; got string "1"`},
	{"const", `{"const":"x"}`, `"y"`, `instance: must be "x"`},
	{"const null", `{"const":null}`, `null`, ""},
	{"const big ints differ", `{"const":9007199254740993}`, `9007199254740992`, `instance: must be 9007199254740993`},

	{"required and additional", `{"properties":{"a":{}},"required":["a"],"additionalProperties":false}`, `{"b":1}`,
		`instance: unexpected property "b" (allowed: "a"); instance: missing required property "a"`},
	{"no properties allowed", `{"additionalProperties":false}`, `{"b":1}`, `instance: unexpected property "b" (no properties are allowed)`},
	{"additionalProperties schema", `{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}`, `{"a":"x","b":"y"}`, `instance/b: expected integer, got string "y"`},
	{"patternProperties", `{"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":"ok","x-b":1,"y":1}`,
		`instance/x-b: expected string, got number 1; instance: unexpected property "y"`},
	{"propertyNames", `{"propertyNames":{"maxLength":3}}`, `{"abcd":1}`, `instance: property name "abcd": is 4 characters long, longer than maxLength 3`},
	{"minProperties", `{"minProperties":2}`, `{"a":1}`, `instance: has 1 property, fewer than minProperties 2`},
	{"maxProperties", `{"maxProperties":1}`, `{"a":1,"b":2}`, `instance: has 2 properties, more than maxProperties 1`},
	{"dependentRequired", `{"dependentRequired":{"card":["cvv"]}}`, `{"card":"4111"}`, `instance: property "card" requires property "cvv"`},
	{"dependentSchemas", `{"dependentSchemas":{"card":{"required":["cvv"]}}}`, `{"card":"4111"}`, `instance: missing required property "cvv"`},
	{"escaped member names", `{"properties":{"a/b":{"type":"string"},"é":{"type":"string"}}}`, `{"a\/b":1,"\u00e9":2}`,
		`instance/a~1b: expected string, got number 1; instance/é: expected string, got number 2`},

	{"items", `{"items":{"type":"string"}}`, `["a",1,"b",2]`, `instance/1: expected string, got number 1; instance/3: expected string, got number 2`},
	{"prefixItems and items false", `{"prefixItems":[{"type":"string"}],"items":false}`, `["a","b"]`, `instance/1: unexpected item: at most 1 item is allowed`},
	{"minItems", `{"minItems":2}`, `[1]`, `instance: has 1 item, fewer than minItems 2`},
	{"maxItems", `{"maxItems":1}`, `[1,2]`, `instance: has 2 items, more than maxItems 1`},
	{"contains", `{"contains":{"type":"string"}}`, `[1,2]`, `instance: has 0 matching the contains schema, fewer than 1`},
	{"maxContains", `{"contains":{"type":"string"},"maxContains":1}`, `["a","b"]`, `instance: has 2 matching the contains schema, more than maxContains 1`},
	{"minContains 0", `{"contains":{"type":"string"},"minContains":0}`, `[1]`, ""},
	{"uniqueItems", `{"uniqueItems":true}`, `[1,{"a":[1]},1.0]`, `instance: items 0 and 2 are equal, but uniqueItems is set`},
	{"uniqueItems objects", `{"uniqueItems":true}`, `[{"a":1,"b":2},{"b":2,"a":1}]`, `instance: items 0 and 1 are equal, but uniqueItems is set`},
	{"uniqueItems distinct", `{"uniqueItems":true}`, `[1,"1",[1],{"1":1},true,null]`, ""},

	{"minLength counts code points", `{"minLength":3}`, `"é😀"`, `instance: is 2 characters long, shorter than minLength 3`},
	{"maxLength escapes", `{"maxLength":2}`, `"\u00e9\ud83d\ude00"`, ""},
	{"pattern", `{"pattern":"^[a-z]+$"}`, `"abc1"`, `instance: string "abc1" does not match pattern "^[a-z]+$"`},
	{"pattern is unanchored", `{"pattern":"b"}`, `"abc"`, ""},
	{"pattern on escapes", `{"pattern":"^é$"}`, `"\u00e9"`, ""},

	{"minimum", `{"minimum":1}`, `0.5`, `instance: 0.5 is less than the minimum 1`},
	{"maximum", `{"maximum":1}`, `1`, ""},
	{"exclusiveMinimum", `{"exclusiveMinimum":0}`, `0`, `instance: 0 must be greater than 0`},
	{"exclusiveMaximum", `{"exclusiveMaximum":10}`, `1e1`, `instance: 1e1 must be less than 10`},
	{"big numbers compare exactly", `{"maximum":18446744073709551615}`, `18446744073709551616`, `instance: 18446744073709551616 is greater than the maximum 18446744073709551615`},
	{"multipleOf", `{"multipleOf":0.01}`, `19.99`, ""},
	{"multipleOf fails", `{"multipleOf":0.01}`, `19.999`, `instance: 19.999 is not a multiple of 0.01`},
	{"multipleOf huge exponent", `{"multipleOf":3}`, `3e500`, ""},
	{"multipleOf tiny", `{"multipleOf":0.5}`, `1e-500`, `instance: 1e-500 is not a multiple of 0.5`},

	{"allOf", `{"allOf":[{"minimum":1},{"maximum":2}]}`, `3`, `instance: 3 is greater than the maximum 2`},
	{"anyOf", `{"anyOf":[{"type":"string"},{"type":"number","minimum":10}]}`, `5`,
		`instance: matches none of the 2 alternatives of anyOf; closest is anyOf[1]; instance: (anyOf[1]) 5 is less than the minimum 10`},
	{"anyOf of types", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `5`, `instance: expected string or null (anyOf), got number 5`},
	{"oneOf none", `{"oneOf":[{"type":"string"},{"type":"boolean"}]}`, `5`, `instance: expected string or boolean (oneOf), got number 5`},
	{"oneOf two", `{"oneOf":[{"minimum":1},{"maximum":5}]}`, `3`, `instance: matches both oneOf[0] and oneOf[1], but must match exactly one`},
	{"oneOf one", `{"oneOf":[{"minimum":1},{"maximum":5}]}`, `7`, ""},
	{"not", `{"not":{"type":"null"}}`, `null`, `instance: must not match the schema in "not"`},
	{"if then", `{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"card"}`, `instance: missing required property "number"`},
	{"if else", `{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"bank"}`, `instance: missing required property "iban"`},
	{"then without if", `{"then":false}`, `1`, ""},

	{"ref to defs", `{"$defs":{"pos":{"type":"integer","minimum":1}},"properties":{"n":{"$ref":"#/$defs/pos"}}}`, `{"n":0}`, `instance/n: 0 is less than the minimum 1`},
	{"ref with escaped pointer", `{"$defs":{"a b":{"type":"integer"},"c/d":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a%20b"},"y":{"$ref":"#/$defs/c~1d"}}}`, `{"x":"1","y":2}`,
		`instance/x: expected integer, got string "1"; instance/y: expected string, got number 2`},
	{"recursive ref", `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}}}`, `{"name":"a","children":[{"name":"b","children":[{"name":3}]}]}`,
		`instance/children/0/children/0/name: expected string, got number 3`},
	{"ref and siblings (2020-12)", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","minLength":2}`, `"a"`, `instance: is 1 character long, shorter than minLength 2`},

	{"format is an annotation", `{"format":"email"}`, `"not an email"`, ""},
	{"unknown keywords are ignored", `{"x-widget":"slider","type":"number"}`, `1`, ""},
	{"invalid JSON", `{}`, `{"a":}`, `instance: invalid JSON at offset 5: unexpected character '}'`},
	{"empty instance", `{}`, ``, `instance: empty JSON text`},
	{"two values", `{}`, `1 2`, `instance: invalid JSON at offset 2: unexpected data after the top-level value`},
	{"too deep", `{}`, strings.Repeat("[", 129) + strings.Repeat("]", 129), `instance: invalid JSON: nesting deeper than 128`},
}

func TestValidate(t *testing.T) {
	for _, tc := range validateCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Compile(json.RawMessage(tc.schema), nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.fast == nil {
				t.Fatal("fast engine declined")
			}
			err = s.Validate(json.RawMessage(tc.instance))
			if got := errString(err); got != tc.want {
				t.Errorf("Validate(%s) =\n%s\nwant\n%s", tc.instance, got, tc.want)
			}
			// Without the full engine, the schema compiles the same.
			if b, err := compile(json.RawMessage(tc.schema), nil, false, nil); err != nil || b.fast == nil {
				t.Errorf("without the full engine: %v", err)
			} else if got := errString(b.Validate(json.RawMessage(tc.instance))); got != tc.want {
				t.Errorf("without the full engine: Validate(%s) = %s", tc.instance, got)
			}
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) {
					t.Errorf("error is %T, not *ValidationError", err)
				}
			}
			if checkSyntax([]byte(tc.instance), MaxInstanceDepth) != nil {
				return
			}
			full, err := compileFull(t, s.raw, false)
			if err != nil {
				t.Fatal(err)
			}
			if ferr := full.Validate([]byte(tc.instance)); (ferr == nil) != (tc.want == "") {
				t.Errorf("full engine: %v, want valid = %v", ferr, tc.want == "")
			}
		})
	}
}

func TestValidationErrorMessageNamesTheRoot(t *testing.T) {
	s := MustCompile(`{"type":"object","properties":{"text":{"type":"string"}},"required":["count"]}`)
	err := s.Validate(json.RawMessage(`{"text":1}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%T", err)
	}
	want := `arguments/text: expected string, got number 1; arguments: missing required property "count"`
	if got := ve.Message("arguments"); got != want {
		t.Errorf("Message = %s, want %s", got, want)
	}
	wantV := []Violation{{Pointer: "/text", Message: "expected string, got number 1"}, {Pointer: "", Message: `missing required property "count"`}}
	for i, v := range ve.Violations {
		if v.Pointer != wantV[i].Pointer || v.Message != wantV[i].Message {
			t.Errorf("violation %d = %+v, want %+v", i, v, wantV[i])
		}
	}
}

func TestValidationErrorIsCapped(t *testing.T) {
	s := MustCompile(`{"items":{"type":"string"}}`)
	err := s.Validate(json.RawMessage(`[` + strings.TrimSuffix(strings.Repeat(`1,`, 50), ",") + `]`))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Violations) != maxViolations || ve.Omitted != 30 {
		t.Fatalf("got %d violations, %d omitted", len(ve.Violations), ve.Omitted)
	}
	if !strings.HasSuffix(ve.Error(), "; and 30 more violations") {
		t.Errorf("message ends %q", ve.Error()[len(ve.Error())-40:])
	}
	if long := strings.Repeat("x", 200); !strings.Contains(errString(MustCompile(`{"type":"number"}`).Validate(json.RawMessage(`"`+long+`"`))), `got string "xxx`) ||
		len(errString(MustCompile(`{"type":"number"}`).Validate(json.RawMessage(`"`+long+`"`)))) > 100 {
		t.Error("long values should be clipped in messages")
	}
}

// The classic blow-up: each level checks the next twice, so a deep
// instance costs 2^depth. The step budget stops it.
func TestValidationBudgetStopsExponentialWork(t *testing.T) {
	s := MustCompile(`{"$defs":{"n":{"allOf":[{"properties":{"a":{"$ref":"#/$defs/n"}}},{"properties":{"a":{"$ref":"#/$defs/n"}}}]}},"$ref":"#/$defs/n"}`)
	deep := strings.Repeat(`{"a":`, 60) + `{}` + strings.Repeat(`}`, 60)
	err := s.Validate(json.RawMessage(deep))
	if got := errString(err); !strings.Contains(got, "validation stopped: the schema needs more than its budget of 1048576 steps") {
		t.Errorf("error = %q", got)
	}
	shallow := strings.Repeat(`{"a":`, 8) + `{}` + strings.Repeat(`}`, 8)
	if err := s.Validate(json.RawMessage(shallow)); err != nil {
		t.Errorf("shallow instance: %v", err)
	}
	small, _ := Compile(json.RawMessage(`{"items":{"allOf":[{},{}]}}`), &CompileOptions{MaxSteps: 10})
	if err := small.Validate(json.RawMessage(`[1,2,3,4,5,6,7,8,9,10]`)); err != nil {
		t.Errorf("work linear in the instance is always allowed: %v", err)
	}
}

func TestFullEngine(t *testing.T) {
	s := MustCompile(`{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":false,"allOf":[{"properties":{"b":{"type":"integer"}},"required":["b"]}]}`)
	if s.full == nil {
		t.Fatal("expected the full engine")
	}
	for _, tc := range []struct{ instance, want string }{
		{`{"a":"x","b":1}`, ""},
		{`{"a":1,"b":1,"c":true}`, `instance/a: expected string, got number; instance: unexpected property "c"`},
		{`{"a":"x"}`, `instance: missing required property "b"`},
		{`1e999999999`, `instance: number 1e999999999 is too large to validate`},
		{`{"b":` + strings.Repeat("1", 2000) + `}`, `instance: number 1111111111111111111111111111111111111111… is too large to validate`},
		{`{"a":`, `instance: invalid JSON: value expected at end of input`},
	} {
		if got := errString(s.Validate(json.RawMessage(tc.instance))); got != tc.want {
			t.Errorf("Validate(%.40s) =\n%s\nwant\n%s", tc.instance, got, tc.want)
		}
	}
}

func TestFullEngineAlternatives(t *testing.T) {
	s := MustCompile(`{"unevaluatedProperties":false,"properties":{"shape":{"anyOf":[{"required":["radius"]},{"required":["side"],"properties":{"side":{"type":"number"}}}]}}}`)
	got := errString(s.Validate(json.RawMessage(`{"shape":{"side":"x"}}`)))
	want := `instance/shape: matches none of the 2 alternatives of anyOf; closest is anyOf[0]; instance/shape: (anyOf[0]) missing required property "radius"`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	s := MustCompile(conformanceSchema)
	good := json.RawMessage(`{"name":"a","address":{"city":"b"}}`)
	bad := json.RawMessage(`{"name":1}`)
	done := make(chan bool)
	for range 4 {
		go func() {
			for range 1000 {
				if s.Validate(good) != nil || s.Validate(bad) == nil {
					done <- false
					return
				}
			}
			done <- true
		}()
	}
	for range 4 {
		if !<-done {
			t.Fatal("wrong verdict under concurrency")
		}
	}
}

// raceEnabled is set by race_test.go.
var raceEnabled bool

func TestValidateAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, tc := range []struct{ schema, instance string }{
		{benchSchema, `{"text":"hello world"}`},
		{conformanceSchema, `{"name":"Ada","address":{"street":"1 Main St","city":"Paris"}}`},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":100},"tags":{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true},"mode":{"anyOf":[{"const":"fast"},{"const":"slow"}]}}}`, `{"n":42,"tags":["a","b"],"mode":"slow"}`},
	} {
		s := MustCompile(tc.schema)
		in := json.RawMessage(tc.instance)
		if allocs := testing.AllocsPerRun(200, func() {
			if s.Validate(in) != nil {
				t.Fatal("invalid")
			}
		}); allocs != 0 {
			t.Errorf("%s: %v allocations per valid instance", tc.instance, allocs)
		}
	}
}

func TestManyRequiredProperties(t *testing.T) {
	var names, members []string
	for i := range 70 {
		name := `"p` + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"`
		names = append(names, name)
		if i != 68 {
			members = append(members, name+`:1`)
		}
	}
	s := MustCompile(`{"required":[` + strings.Join(names, ",") + `],"additionalProperties":{"type":"integer"}}`)
	got := errString(s.Validate(json.RawMessage(`{` + strings.Join(members, ",") + `}`)))
	if want := `instance: missing required property ` + names[68]; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if err := s.Validate(json.RawMessage(`{` + strings.Join(members, ",") + `,` + names[68] + `:2}`)); err != nil {
		t.Error(err)
	}
}

// TestNumberViolationQuotesAClip: a number out of bounds was quoted whole
// in its violation, so that a number of a million digits made a message
// of a million bytes (now that every integer argument of a typed tool has
// bounds, any client can send one).
func TestNumberViolationQuotesAClip(t *testing.T) {
	s := MustCompile(`{"type":"integer","maximum":127}`)
	huge := "1" + strings.Repeat("0", 1<<20)
	err := s.Validate([]byte(huge))
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != 1 {
		t.Fatalf("Validate: %v", err)
	}
	if m := verr.Violations[0].Message; len(m) > 100 || !strings.HasSuffix(m, "is greater than the maximum 127") {
		t.Errorf("the violation of a number of %d digits: %d bytes: %.120s", len(huge), len(m), m)
	}
}
