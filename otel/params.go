package otel

import (
	"bytes"
	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/mcp"
)

// Reading and writing request params in place. The instrumentation needs
// a few members of a request's params (the tool or prompt name, a
// resource URI, and in _meta the protocol revision and the trace
// context), and adds the trace context to the _meta of what it sends.
// Both are done on the encoded params, with the module's JSON scanner
// (internal/jsonscan), without decoding them: params reach a middleware
// encoded, and the handler decodes them once more anyway.

// paramsInfo is what the instrumentation reads from a request's params.
type paramsInfo struct {
	name    []byte // "name" (tools/call, prompts/get), the JSON string as it is
	uri     string // "uri" (resources/read, subscribe, unsubscribe, notifications/resources/updated)
	version string // _meta["io.modelcontextprotocol/protocolVersion"], when a supported revision
	carrier carrier
}

// What a method's params may name.
const (
	wantName = 1 << iota
	wantURI
	wantMeta // the _meta members: version and trace context
)

// wanted returns what to read from the params of method.
func wanted(method string) int {
	w := wantMeta
	switch method {
	case mcp.MethodCallTool, mcp.MethodGetPrompt:
		w |= wantName
	case mcp.MethodReadResource, mcp.MethodSubscribe, mcp.MethodUnsubscribe, mcp.NotificationResourceUpdated:
		w |= wantURI
	}
	return w
}

// readParams reads what want asks from params, a JSON object (or nothing).
// Members it cannot read (not strings, malformed params) are left empty.
func readParams(params []byte, want int, info *paramsInfo) {
	if want == 0 || len(params) == 0 {
		return
	}
	jsonscan.EachMember(params, jsonscan.SkipSpace(params, 0), func(key []byte, escaped bool, v []byte) bool {
		switch {
		case want&wantName != 0 && jsonscan.KeyEqual(key, escaped, "name"):
			if len(v) > 0 && v[0] == '"' {
				info.name = v
			}
		case want&wantURI != 0 && jsonscan.KeyEqual(key, escaped, "uri"):
			info.uri = str(v)
		case want&wantMeta != 0 && jsonscan.KeyEqual(key, escaped, "_meta"):
			readMeta(v, info)
		}
		return true
	})
}

// readMeta reads the protocol revision and the trace context of a _meta
// object.
func readMeta(meta []byte, info *paramsInfo) {
	jsonscan.EachMember(meta, 0, func(key []byte, escaped bool, v []byte) bool {
		if jsonscan.KeyEqual(key, escaped, mcp.MetaKeyProtocolVersion) {
			info.version = supportedVersion(v)
		} else if i := info.carrier.index(key, escaped); i >= 0 {
			info.carrier.vals[i] = str(v)
		}
		return true
	})
}

// versions are the revisions mcpwire speaks, as strings.
var versions = func() []string {
	var out []string
	for _, v := range mcp.SupportedVersions() {
		out = append(out, string(v))
	}
	return out
}()

// supportedVersion returns the revision that the JSON string v names if
// it is one mcpwire speaks, without allocating; "" otherwise, for a peer
// must not be able to put any string it likes in a metric.
func supportedVersion(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	for _, s := range versions {
		if string(v[1:len(v)-1]) == s {
			return s
		}
	}
	if s := str(v); mcp.IsSupported(mcp.Version(s)) { // escaped
		return s
	}
	return ""
}

// str returns the JSON string v as a Go string, or "" when v is not a
// string.
func str(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	s, _ := jsonscan.Unquote(v)
	return s
}

// injectMeta returns params with the entries of c added to its _meta
// object: params itself when c is empty, when params is not an object
// (or nothing), when its _meta is not an object, or when every entry is
// there already (a caller's own trace context is kept: a key is never
// written twice, which a strict peer refuses). Absent params become
// {"_meta":{...}}. The result is a new slice; params is not changed.
func injectMeta(params []byte, c *carrier) []byte {
	if c.empty() {
		return params
	}
	i := jsonscan.SkipSpace(params, 0)
	if i == len(params) || string(bytes.TrimRight(params[i:], " \t\r\n")) == "null" { // null, with JSON's white space around it
		b := make([]byte, 0, 16+c.size())
		b = append(b, `{"_meta":{`...)
		b = c.appendMembers(b, nil)
		return append(b, "}}"...)
	}
	var meta []byte // the first _meta member's value
	if !jsonscan.EachMember(params, i, func(key []byte, escaped bool, v []byte) bool {
		if jsonscan.KeyEqual(key, escaped, "_meta") {
			meta = v
			return false
		}
		return true
	}) {
		return params // not an object, or malformed
	}
	if meta != nil {
		// Into the existing _meta, after its opening brace.
		var present [maxFields]bool
		members := false
		if !jsonscan.EachMember(meta, 0, func(k []byte, esc bool, _ []byte) bool {
			members = true
			if j := c.index(k, esc); j >= 0 {
				present[j] = true
			}
			return true
		}) {
			return params // _meta is not an object, or malformed
		}
		at := offset(params, meta) + 1 // just past the brace of _meta
		b := make([]byte, 0, len(params)+c.size()+1)
		b = append(b, params[:at]...)
		n := len(b)
		b = c.appendMembers(b, &present)
		if len(b) == n {
			return params // every entry is there already
		}
		if members {
			b = append(b, ',')
		}
		return append(b, params[at:]...)
	}
	// A new _meta, as the first member.
	at := i + 1
	empty := jsonscan.SkipSpace(params, at) < len(params) && params[jsonscan.SkipSpace(params, at)] == '}'
	b := make([]byte, 0, len(params)+c.size()+12)
	b = append(b, params[:at]...)
	b = append(b, `"_meta":{`...)
	b = c.appendMembers(b, nil)
	b = append(b, '}')
	if !empty {
		b = append(b, ',')
	}
	return append(b, params[at:]...)
}

// offset returns the offset of sub, a slice of b, in b.
func offset(b, sub []byte) int { return cap(b) - cap(sub) }
