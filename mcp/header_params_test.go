package mcp_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

func TestToolHeaderParams(t *testing.T) {
	got, err := mcp.ToolHeaderParams(json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"Count"},"b":true}},
		"flag":{"type":"boolean","x-mcp-header":"Flag"},
		"plain":{"type":"string"}}}`))
	want := []mcp.HeaderParam{{Name: "Flag", Path: []string{"flag"}}, {Name: "Count", Path: []string{"opts", "n"}}, {Name: "Region", Path: []string{"region"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v (in the order of the paths)", got, err, want)
	}
	if got, err := mcp.ToolHeaderParams(json.RawMessage(`{"type":"object"}`)); got != nil || err != nil {
		t.Errorf("no annotation: %v, %v", got, err)
	}
	for _, bad := range []string{
		`{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}`,
		`{"type":"object","properties":{"x":{"x-mcp-header":"X"}}}`,
		`{"type":"object","properties":{"x":{"type":"string","x-mcp-header":""}}}`,
		`{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"a b"}}}`,
		`{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"A"},"y":{"type":"string","x-mcp-header":"a"}}}`,
		`{"type":"object","properties":{"x":{"type":"string","x-mcp-header":7}}}`,
		`{"type":"object","x-mcp-header":"Root"}`,
	} {
		if _, err := mcp.ToolHeaderParams(json.RawMessage(bad)); !errors.Is(err, mcp.ErrInvalidHeaderAnnotation) {
			t.Errorf("%s: %v, want an error wrapping ErrInvalidHeaderAnnotation", bad, err)
		}
	}
	if _, err := mcp.ToolHeaderParams(json.RawMessage(`[`)); err == nil || errors.Is(err, mcp.ErrInvalidHeaderAnnotation) {
		t.Errorf("malformed schema: %v, want an error that is not about annotations", err)
	}
}
