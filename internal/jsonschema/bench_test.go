package jsonschema

import (
	"encoding/json"
	"testing"
)

// benchSchema is the typical tool input: one required string.
const benchSchema = `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`

// mediumSchema is a larger tool input with the usual keywords.
const mediumSchema = `{"type":"object","properties":{
	"query":{"type":"string","minLength":1,"maxLength":200},
	"limit":{"type":"integer","minimum":1,"maximum":100},
	"sort":{"enum":["relevance","date","stars"]},
	"filters":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":["string","number","boolean"]}},"required":["field","value"],"additionalProperties":false}},
	"cursor":{"type":["string","null"]}},
	"required":["query"],"additionalProperties":false}`

const mediumInstance = `{"query":"json schema validator","limit":20,"sort":"stars","filters":[{"field":"language","value":"go"},{"field":"archived","value":false}],"cursor":null}`

func benchValidate(b *testing.B, schema, instance string, wantValid bool) {
	s := MustCompile(schema)
	in := json.RawMessage(instance)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := s.Validate(in); (err == nil) != wantValid {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	b.Run("small", func(b *testing.B) { benchValidate(b, benchSchema, `{"text":"hello world"}`, true) })
	b.Run("conformance", func(b *testing.B) {
		benchValidate(b, conformanceSchema, `{"name":"Ada","address":{"street":"1 Main St","city":"Paris"}}`, true)
	})
	b.Run("medium", func(b *testing.B) { benchValidate(b, mediumSchema, mediumInstance, true) })
	b.Run("small-invalid", func(b *testing.B) { benchValidate(b, benchSchema, `{"text":5,"extra":true}`, false) })
}

// BenchmarkValidateFullEngine measures the same validations through the
// full engine (github.com/santhosh-tekuri/jsonschema/v6), as used for
// schemas the fast engine declines: decode into any, validate, convert.
func BenchmarkValidateFullEngine(b *testing.B) {
	for _, tc := range []struct{ name, schema, instance string }{
		{"small", benchSchema, `{"text":"hello world"}`},
		{"medium", mediumSchema, mediumInstance},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := MustCompile(tc.schema)
			full, err := compileFull(b, s.raw, false)
			if err != nil {
				b.Fatal(err)
			}
			in := []byte(tc.instance)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := checkSyntax(in, MaxInstanceDepth); err != nil {
					b.Fatal(err)
				}
				if err := full.Validate(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile compiles schemas written by hand, with the full engine
// judging them and with the built-in meta-schema check.
func BenchmarkCompile(b *testing.B) {
	for _, tc := range []struct{ name, schema string }{
		{"small", benchSchema},
		{"medium", mediumSchema},
	} {
		for _, full := range []bool{true, false} {
			name, engine := tc.name+"/builtin", FullEngine(nil)
			if full {
				name, engine = tc.name+"/full", theFullEngine(b)
			}
			b.Run(name, func(b *testing.B) {
				raw := json.RawMessage(tc.schema)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := compile(raw, nil, false, engine); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkFor(b *testing.B) {
	type Args struct {
		Text  string   `json:"text" jsonschema:"the text"`
		Limit *int     `json:"limit"`
		Tags  []string `json:"tags,omitempty"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := For[Args](nil); err != nil {
			b.Fatal(err)
		}
	}
}
