package streamable

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A HeaderParam is a tool argument that HTTP clients mirror in an
// Mcp-Param-{Name} header (2026-07-28); see mcp.ToolHeaderParams, which
// finds them in a tool's inputSchema.
type HeaderParam = mcp.HeaderParam

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
