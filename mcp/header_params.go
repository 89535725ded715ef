package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A HeaderParam is a tool argument that Streamable HTTP mirrors in a
// header (2026-07-28, SEP-2243): the property of the tool's inputSchema
// annotated "x-mcp-header": Name travels as the header
// Mcp-Param-{Name} of every modern tools/call that sets the argument, so
// that gateways can route on it without reading the body.
type HeaderParam struct {
	// Name is the value of the x-mcp-header annotation.
	Name string
	// Path is the property names from the arguments object to the
	// argument (one name for a top-level property).
	Path []string
}

// ErrInvalidHeaderAnnotation is wrapped by the error of ToolHeaderParams
// when a tool's x-mcp-header annotations break the rules. Over HTTP,
// clients drop such tools from tools/list results (package client
// reports each with a *client.DroppedToolError), and servers should
// refuse them.
var ErrInvalidHeaderAnnotation = errors.New("invalid x-mcp-header annotation")

// Bounds of ToolHeaderParams.
const (
	maxHeaderSchemaDepth = 32
	maxHeaderParams      = 64
)

// ToolHeaderParams returns the x-mcp-header parameters of a tool's
// inputSchema, reached from the root through "properties" only, in the
// order of their paths. A schema without annotations has none (nil).
//
// It fails on an invalid annotation, with an error wrapping
// ErrInvalidHeaderAnnotation: a name that is not a string, empty, not an
// HTTP token, or used twice (names compare case-insensitively); an
// annotation on the root, or on a property that is not of type string,
// integer or boolean (number is not allowed); more than 64 parameters, or
// properties nested deeper than 32. An inputSchema that is not a JSON
// object is an error too, wrapping neither.
func ToolHeaderParams(inputSchema json.RawMessage) ([]HeaderParam, error) {
	var out []HeaderParam
	seen := make(map[string]bool)
	if err := collectHeaderParams(inputSchema, nil, seen, &out); err != nil {
		return nil, err
	}
	return out, nil
}

type headerSchemaNode struct {
	Type       json.RawMessage            `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Header     json.RawMessage            `json:"x-mcp-header"`
}

func collectHeaderParams(raw json.RawMessage, path []string, seen map[string]bool, out *[]HeaderParam) error {
	if len(path) > maxHeaderSchemaDepth {
		return fmt.Errorf("mcp: inputSchema nested deeper than %d properties: %w", maxHeaderSchemaDepth, ErrInvalidHeaderAnnotation)
	}
	var n headerSchemaNode
	if err := json.Unmarshal(raw, &n); err != nil {
		if len(path) == 0 {
			return fmt.Errorf("mcp: inputSchema: %w", err)
		}
		return nil // a boolean schema: no annotation below
	}
	where := "the root"
	if len(path) > 0 {
		where = "property " + strings.Join(path, ".")
	}
	if n.Header != nil {
		var name string
		if err := json.Unmarshal(n.Header, &name); err != nil {
			return fmt.Errorf("mcp: %w: the x-mcp-header of %s is not a string", ErrInvalidHeaderAnnotation, where)
		}
		if !isHTTPToken(name) {
			return fmt.Errorf("mcp: %w: x-mcp-header %q of %s is not an HTTP token", ErrInvalidHeaderAnnotation, name, where)
		}
		var typ string
		json.Unmarshal(n.Type, &typ)
		if len(path) == 0 || (typ != "string" && typ != "integer" && typ != "boolean") {
			return fmt.Errorf("mcp: %w: x-mcp-header %q annotates %s, which is not of type string, integer or boolean", ErrInvalidHeaderAnnotation, name, where)
		}
		key := strings.ToLower(name)
		if seen[key] {
			return fmt.Errorf("mcp: %w: x-mcp-header %q is used twice", ErrInvalidHeaderAnnotation, name)
		}
		seen[key] = true
		if len(*out) >= maxHeaderParams {
			return fmt.Errorf("mcp: %w: more than %d x-mcp-header parameters", ErrInvalidHeaderAnnotation, maxHeaderParams)
		}
		*out = append(*out, HeaderParam{Name: name, Path: slices.Clone(path)})
	}
	// Sorted, so that the parameters and the error for a name used twice
	// do not depend on map order.
	for _, name := range slices.Sorted(maps.Keys(n.Properties)) {
		if err := collectHeaderParams(n.Properties[name], append(path, name), seen, out); err != nil {
			return err
		}
	}
	return nil
}

// isHTTPToken reports whether s is a non-empty HTTP token (RFC 9110
// §5.6.2).
func isHTTPToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
