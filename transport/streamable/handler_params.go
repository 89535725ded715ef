package streamable

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A HeaderParam is a tool parameter that HTTP clients mirror in a header
// (2026-07-28, SEP-2243): the property of the tool's inputSchema
// annotated "x-mcp-header": Name is sent as Mcp-Param-{Name}.
type HeaderParam struct {
	// Name is the value of the x-mcp-header annotation.
	Name string
	// Path is the property names from the arguments object to the
	// parameter (one name for a top-level property).
	Path []string
}

// Bounds of HeaderParamsFromSchema.
const (
	maxSchemaDepth  = 32
	maxHeaderParams = 64
)

// HeaderParamsFromSchema returns the x-mcp-header parameters of a tool's
// inputSchema, reached from the root through "properties" only. It fails
// on an invalid annotation: a name that is empty, not an HTTP token or
// used twice (names compare case-insensitively), or a property that is
// not of type string, integer or boolean; clients drop such tools, and
// servers should refuse them.
func HeaderParamsFromSchema(schema json.RawMessage) ([]HeaderParam, error) {
	var out []HeaderParam
	seen := make(map[string]bool)
	if err := collectHeaderParams(schema, nil, seen, &out); err != nil {
		return nil, err
	}
	return out, nil
}

type schemaNode struct {
	Type       json.RawMessage            `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Header     json.RawMessage            `json:"x-mcp-header"`
}

func collectHeaderParams(raw json.RawMessage, path []string, seen map[string]bool, out *[]HeaderParam) error {
	if len(path) > maxSchemaDepth {
		return fmt.Errorf("streamable: inputSchema nested deeper than %d properties", maxSchemaDepth)
	}
	var n schemaNode
	if err := json.Unmarshal(raw, &n); err != nil {
		if len(path) == 0 {
			return fmt.Errorf("streamable: inputSchema: %w", err)
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
			return fmt.Errorf("streamable: x-mcp-header of %s is not a string", where)
		}
		if !isToken(name) {
			return fmt.Errorf("streamable: x-mcp-header %q of %s is not an HTTP token", name, where)
		}
		var typ string
		json.Unmarshal(n.Type, &typ)
		if len(path) == 0 || (typ != "string" && typ != "integer" && typ != "boolean") {
			return fmt.Errorf("streamable: x-mcp-header %q annotates %s, which is not of type string, integer or boolean", name, where)
		}
		key := strings.ToLower(name)
		if seen[key] {
			return fmt.Errorf("streamable: x-mcp-header %q is used twice", name)
		}
		seen[key] = true
		if len(*out) >= maxHeaderParams {
			return fmt.Errorf("streamable: more than %d x-mcp-header parameters", maxHeaderParams)
		}
		*out = append(*out, HeaderParam{Name: name, Path: append([]string(nil), path...)})
	}
	for name, sub := range n.Properties {
		if err := collectHeaderParams(sub, append(path, name), seen, out); err != nil {
			return err
		}
	}
	return nil
}

// isToken reports whether s is a non-empty HTTP token (RFC 9110 §5.6.2).
func isToken(s string) bool {
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

// checkParamHeaders compares the Mcp-Param-* headers of a tools/call with
// the arguments they mirror: a parameter that is set needs its header,
// with the same value (integers compared as numbers); a header needs its
// parameter.
func checkParamHeaders(r *http.Request, args []byte, params []HeaderParam) *jsonrpc.Error {
	for _, p := range params {
		name := mcp.HeaderParamPrefix + p.Name
		v := memberPath(args, p.Path)
		if isNull(v) {
			v = nil
		}
		hv, has := header(r, http.CanonicalHeaderKey(name))
		switch {
		case v == nil && !has:
			continue
		case v == nil:
			return mcp.HeaderMismatchError(fmt.Sprintf("%s header is present but the argument %s is not", name, strings.Join(p.Path, ".")))
		case !has:
			return mcp.HeaderMismatchError(fmt.Sprintf("%s header is required: the argument %s is set", name, strings.Join(p.Path, ".")))
		}
		text, err := mcp.DecodeHeaderValue(hv)
		if err != nil {
			return mcp.HeaderMismatchError(fmt.Sprintf("%s header value %q is invalid", name, hv))
		}
		if !paramMatches(v, text) {
			return mcp.HeaderMismatchError(fmt.Sprintf("%s header value %q does not match the argument %s", name, text, strings.Join(p.Path, ".")))
		}
	}
	return nil
}

// paramMatches reports whether the header text stands for the JSON value
// v: the same string, the same boolean, or the same number.
func paramMatches(v []byte, text string) bool {
	switch c := v[0]; {
	case c == '"':
		return stringEquals(v, text)
	case c == 't' || c == 'f':
		return string(v) == text
	case c == '-' || '0' <= c && c <= '9':
		if a, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			b, err := strconv.ParseInt(text, 10, 64)
			return err == nil && a == b
		}
		a, err1 := strconv.ParseFloat(string(v), 64)
		b, err2 := strconv.ParseFloat(text, 64)
		return err1 == nil && err2 == nil && a == b
	}
	return false
}
