package jsonschema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
)

func ExampleFor() {
	type Args struct {
		City  string `json:"city" jsonschema:"the city to look up"`
		Units string `json:"units,omitempty" jsonschema:"metric or imperial"`
		Days  *int   `json:"days"`
	}
	// The schema of a tool's arguments: 64-bit integers are bounded to
	// what a client holding numbers as float64 sends exactly.
	s, err := jsonschema.For[Args](&jsonschema.InferOptions{SafeIntegers: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(s.JSON()))
	// Output:
	// {"type":"object","properties":{"city":{"type":"string","description":"the city to look up"},"units":{"type":"string","description":"metric or imperial"},"days":{"type":["integer","null"],"minimum":-9007199254740991,"maximum":9007199254740991}},"required":["city"],"additionalProperties":false}
}

func ExampleCompile() {
	s, err := jsonschema.Compile(json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"properties": {"text": {"type": "string"}},
		"required": ["text"]
	}`), &jsonschema.CompileOptions{ObjectRoot: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(s.JSON()))
	// Output:
	// {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"text":{"type":"string"}},"required":["text"]}
}

func ExampleSchema_Validate() {
	s := jsonschema.MustCompile(`{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text","count"],"additionalProperties":false}`)
	err := s.Validate(json.RawMessage(`{"text":5,"cuont":2}`))
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		// A server returns this to the model as a tool result with isError.
		fmt.Println(verr.Message("arguments"))
	}
	// Output:
	// arguments/text: expected string, got number 5; arguments: unexpected property "cuont" (allowed: "text", "count"); arguments: missing required property "count"
}
