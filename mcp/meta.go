package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Reserved _meta keys. Keys under the io.modelcontextprotocol/ prefix (and
// any prefix whose second label is modelcontextprotocol or mcp) belong to
// the specification; see IsReservedMetaKey.
const (
	// MetaKeyProgressToken opts a request into notifications/progress.
	MetaKeyProgressToken = "progressToken"
	// MetaKeyProtocolVersion carries the revision of a modern request
	// (required from 2026-07-28 on).
	MetaKeyProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	// MetaKeyClientCapabilities carries the client capabilities that apply
	// to one modern request (required from 2026-07-28 on).
	MetaKeyClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	// MetaKeyClientInfo carries the client's Implementation on a modern
	// request (SHOULD; for display only).
	MetaKeyClientInfo = "io.modelcontextprotocol/clientInfo"
	// MetaKeyLogLevel opts a modern request into notifications/message at
	// this level and above (deprecated with logging in 2026-07-28).
	MetaKeyLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaKeyServerInfo carries the server's Implementation on every modern
	// result (SHOULD).
	MetaKeyServerInfo = "io.modelcontextprotocol/serverInfo"
	// MetaKeySubscriptionID tags every message of a subscriptions/listen
	// stream with the JSON-RPC id of the listen request.
	MetaKeySubscriptionID = "io.modelcontextprotocol/subscriptionId"
	// MetaKeyRelatedTask associates a message with a task (2025-11-25 core
	// tasks); its value is a RelatedTaskMetadata.
	MetaKeyRelatedTask = "io.modelcontextprotocol/related-task"
	// MetaKeyModelImmediateResponse lets a server give the model a text to
	// use while a task runs (2025-11-25 core tasks, CreateTaskResult._meta).
	MetaKeyModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
	// MetaKeyTraceParent, MetaKeyTraceState and MetaKeyBaggage carry W3C
	// trace context (reserved in 2026-07-28).
	MetaKeyTraceParent = "traceparent"
	MetaKeyTraceState  = "tracestate"
	MetaKeyBaggage     = "baggage"

	// MetaPrefix is the prefix of the keys the specification defines.
	MetaPrefix = "io.modelcontextprotocol/"
)

// Meta is a general _meta object, as found on results, notifications and
// descriptive types (Tool, Resource, content blocks). Values are decoded
// by encoding/json (numbers as float64); for a typed view of one entry use
// Decode. Requests use the typed RequestMeta instead.
type Meta map[string]any

// Decode decodes the entry key into v and reports whether it was present.
func (m Meta) Decode(key string, v any) (bool, error) {
	x, ok := m[key]
	if !ok {
		return false, nil
	}
	var b []byte
	switch x := x.(type) {
	case json.RawMessage:
		b = x
	default:
		var err error
		if b, err = json.Marshal(x); err != nil {
			return true, err
		}
	}
	return true, json.Unmarshal(b, v)
}

// A ProgressToken associates progress notifications with a request. Like a
// request id it is a string or an integer, and it round-trips with its JSON
// type: a token received as 7 is echoed as 7, never "7". The zero token
// means "none". Build one with jsonrpc.StringID or jsonrpc.Int64ID, or use
// the id of the request itself.
type ProgressToken = jsonrpc.ID

// RequestMeta is the _meta of request params, typed for the hot path: the
// keys every modern request carries are fields, all other keys are kept
// verbatim in Other. The zero RequestMeta is omitted from params (the
// params types tag it omitzero).
//
// Decoding treats a null value of a typed key as absent; a typed key of the
// wrong JSON type is an error (which servers answer with -32602).
type RequestMeta struct {
	// ProgressToken is "progressToken"; the zero token when absent.
	ProgressToken ProgressToken
	// ProtocolVersion is "io.modelcontextprotocol/protocolVersion". Its
	// presence marks a modern request.
	ProtocolVersion Version
	// ClientCapabilities is "io.modelcontextprotocol/clientCapabilities";
	// nil when absent, &ClientCapabilities{} for {}.
	ClientCapabilities *ClientCapabilities
	// ClientInfo is "io.modelcontextprotocol/clientInfo".
	ClientInfo *Implementation
	// LogLevel is "io.modelcontextprotocol/logLevel"; "" when absent, in
	// which case a modern server sends no notifications/message for the
	// request.
	LogLevel LoggingLevel
	// Other holds every other key with its value as received (or to be
	// sent), for example traceparent or io.modelcontextprotocol/related-task.
	// Keys that duplicate a set typed field are not written.
	Other map[string]json.RawMessage

	link *envelopeLink // set by Envelope.Stamp or UseCache (envelope.go)
}

// IsZero reports whether m has no entries.
func (m RequestMeta) IsZero() bool {
	return !m.ProgressToken.IsValid() && m.ProtocolVersion == "" &&
		m.ClientCapabilities == nil && m.ClientInfo == nil &&
		m.LogLevel == "" && len(m.Other) == 0
}

// IsModern reports whether the request carrying m belongs to the modern
// era, that is, whether it names its protocol version in _meta.
func (m *RequestMeta) IsModern() bool { return m.ProtocolVersion != "" }

// SetOther marshals v and stores it in Other under key.
func (m *RequestMeta) SetOther(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if m.Other == nil {
		m.Other = make(map[string]json.RawMessage)
	}
	m.Other[key] = b
	return nil
}

// MarshalJSON implements json.Marshaler. Typed keys come first, then the
// other keys in sorted order, so the encoding is deterministic.
func (m RequestMeta) MarshalJSON() ([]byte, error) {
	return m.appendJSON(make([]byte, 0, m.sizeHint()))
}

// sizeHint estimates the length of m's encoding, for sizing a buffer:
// exact for an envelope with nothing else.
func (m *RequestMeta) sizeHint() int {
	n := 2
	if m.ProgressToken.IsValid() {
		n += 40
	}
	if env := m.envelope(); env != nil {
		n += 1 + len(env.raw)
	} else {
		if m.ProtocolVersion != "" {
			n += 56
		}
		if m.ClientInfo != nil {
			n += 38 + implSizeHint(m.ClientInfo)
		}
		if m.ClientCapabilities != nil {
			n += 64
		}
	}
	if m.LogLevel != "" {
		n += 48
	}
	for k, v := range m.Other {
		n += len(k) + len(v) + 4
	}
	return n
}

// appendJSON appends m's encoding to b.
func (m *RequestMeta) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	n := 0
	member := func(key string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendQuoted(b, key)
		b = append(b, ':')
	}
	if m.ProgressToken.IsValid() {
		member(MetaKeyProgressToken)
		b = m.ProgressToken.AppendJSON(b)
	}
	if env := m.envelope(); env != nil {
		// The three members the envelope encodes, in the same order.
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, env.raw...)
	} else {
		if m.ProtocolVersion != "" {
			member(MetaKeyProtocolVersion)
			b = appendQuoted(b, string(m.ProtocolVersion))
		}
		if m.ClientInfo != nil {
			member(MetaKeyClientInfo)
			var err error
			if b, err = appendImplementation(b, *m.ClientInfo); err != nil {
				return nil, err
			}
		}
		if m.ClientCapabilities != nil {
			member(MetaKeyClientCapabilities)
			var err error
			if b, err = appendCapabilities(b, m.ClientCapabilities); err != nil {
				return nil, err
			}
		}
	}
	if m.LogLevel != "" {
		member(MetaKeyLogLevel)
		b = appendQuoted(b, string(m.LogLevel))
	}
	if len(m.Other) > 0 {
		keys := make([]string, 0, len(m.Other))
		for k := range m.Other {
			if !m.typedKeySet(k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			v := m.Other[k]
			if len(v) == 0 {
				v = json.RawMessage("null")
			}
			member(k)
			b = append(b, v...)
		}
	}
	return append(b, '}'), nil
}

// appendCapabilities appends the JSON of client capabilities; {} (what a
// client without handlers declares) without reflection.
func appendCapabilities(b []byte, c *ClientCapabilities) ([]byte, error) {
	if c.isZero() {
		return append(b, '{', '}'), nil
	}
	v, err := json.Marshal(c)
	return append(b, v...), err
}

// typedKeySet reports whether key is a typed key whose field is set.
func (m *RequestMeta) typedKeySet(key string) bool {
	switch key {
	case MetaKeyProgressToken:
		return m.ProgressToken.IsValid()
	case MetaKeyProtocolVersion:
		return m.ProtocolVersion != ""
	case MetaKeyClientInfo:
		return m.ClientInfo != nil
	case MetaKeyClientCapabilities:
		return m.ClientCapabilities != nil
	case MetaKeyLogLevel:
		return m.LogLevel != ""
	}
	return false
}

// UnmarshalJSON implements json.Unmarshaler.
//
// The envelope of a modern request costs at most two allocations: the
// capabilities and the client info share one, and the strings of the
// client info share the other (a known protocol version or log level
// costs none). With an EnvelopeCache (UseCache), an envelope the same as
// the last one costs none.
func (m *RequestMeta) UnmarshalJSON(data []byte) error {
	var cache *EnvelopeCache
	if m.link != nil {
		cache = m.link.cache
	}
	*m = RequestMeta{}
	var capsRaw, infoRaw []byte // decoded together, after the loop
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		var k string
		if escaped {
			var err error
			if k, err = keyString(key, escaped); err != nil {
				return true, err
			}
		} else if k = typedMetaKey(key); k == "" {
			k = string(key)
		}
		if isNull(v) && isTypedMetaKey(k) {
			switch k {
			case MetaKeyClientCapabilities:
				capsRaw = nil
			case MetaKeyClientInfo:
				infoRaw = nil
			}
			return false, nil
		}
		switch k {
		case MetaKeyProgressToken:
			if err := m.ProgressToken.UnmarshalJSON(v); err != nil {
				return true, fieldError("_meta", k, "a string or an integer")
			}
		case MetaKeyProtocolVersion:
			s, ok := internRaw(v, supported[:])
			if !ok {
				return true, fieldError("_meta", k, "a string")
			}
			m.ProtocolVersion = s
		case MetaKeyClientCapabilities:
			capsRaw = v
		case MetaKeyClientInfo:
			infoRaw = v
		case MetaKeyLogLevel:
			s, ok := internRaw(v, levels[:])
			if !ok {
				return true, fieldError("_meta", k, "a string")
			}
			m.LogLevel = s
		default:
			if m.Other == nil {
				m.Other = make(map[string]json.RawMessage, 2)
			}
			m.Other[k] = append(json.RawMessage(nil), v...)
		}
		return false, nil
	})
	if err != nil || capsRaw == nil && infoRaw == nil {
		return err
	}
	return m.decodeEnvelope(capsRaw, infoRaw, cache)
}

// internRaw decodes the JSON string v, returning the element of known it
// spells (so that a known value does not allocate) or a new string.
func internRaw[T ~string](v []byte, known []T) (T, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		for _, k := range known {
			if string(v[1:len(v)-1]) == string(k) {
				return k, true
			}
		}
	}
	s, ok := rawString(v)
	return T(s), ok
}

// typedMetaKey returns the typed key that key spells (the constant, so
// that decoding a typed key does not allocate), or "".
func typedMetaKey(key []byte) string {
	switch string(key) {
	case MetaKeyProgressToken:
		return MetaKeyProgressToken
	case MetaKeyProtocolVersion:
		return MetaKeyProtocolVersion
	case MetaKeyClientCapabilities:
		return MetaKeyClientCapabilities
	case MetaKeyClientInfo:
		return MetaKeyClientInfo
	case MetaKeyLogLevel:
		return MetaKeyLogLevel
	}
	return ""
}

func isTypedMetaKey(k string) bool {
	switch k {
	case MetaKeyProgressToken, MetaKeyProtocolVersion, MetaKeyClientCapabilities,
		MetaKeyClientInfo, MetaKeyLogLevel:
		return true
	}
	return false
}

// DecodeRequestMeta decodes only the _meta member of encoded request
// params, so that an engine can classify a request (modern when it names a
// protocol version) and check its capabilities before decoding the rest.
// Params without _meta, and absent params (nil or null), yield the zero
// RequestMeta.
func DecodeRequestMeta(params []byte) (RequestMeta, error) {
	var m RequestMeta
	if len(params) == 0 {
		return m, nil
	}
	raw, found, err := findMember(params, "_meta")
	if err != nil || !found {
		return m, err
	}
	err = m.UnmarshalJSON(raw)
	return m, err
}

// RelatedTaskMetadata is the value of _meta["io.modelcontextprotocol/related-task"]
// (2025-11-25 core tasks): it ties a message to a task.
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// ValidateMetaKey checks the syntax of a _meta key: an optional prefix of
// dot-separated labels followed by '/', then a name. Labels start with a
// letter, end with a letter or digit, and contain letters, digits and
// hyphens. A non-empty name starts and ends with a letter or digit and
// contains letters, digits, '-', '_' and '.'.
func ValidateMetaKey(key string) error {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		prefix, name = "", key
	} else {
		if prefix == "" {
			return fmt.Errorf("mcp: _meta key %q: empty prefix", key)
		}
		for label := range strings.SplitSeq(prefix, ".") {
			if !validLabel(label) {
				return fmt.Errorf("mcp: _meta key %q: invalid prefix label %q", key, label)
			}
		}
	}
	if !validMetaName(name) {
		return fmt.Errorf("mcp: _meta key %q: invalid name %q", key, name)
	}
	return nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := 1; i < len(l)-1; i++ {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func validMetaName(n string) bool {
	if n == "" {
		return true
	}
	if !isAlnum(n[0]) || !isAlnum(n[len(n)-1]) {
		return false
	}
	for i := 1; i < len(n)-1; i++ {
		switch c := n[i]; {
		case isAlnum(c), c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// IsReservedMetaKey reports whether key belongs to the specification: a
// prefixed key whose prefix has modelcontextprotocol or mcp as its second
// label (io.modelcontextprotocol/, dev.mcp/, ...), or one of the reserved
// unprefixed keys (progressToken, traceparent, tracestate, baggage).
// Implementations must not define keys of their own there.
func IsReservedMetaKey(key string) bool {
	prefix, _, ok := strings.Cut(key, "/")
	if !ok {
		switch key {
		case MetaKeyProgressToken, MetaKeyTraceParent, MetaKeyTraceState, MetaKeyBaggage:
			return true
		}
		return false
	}
	labels := strings.Split(prefix, ".")
	return len(labels) >= 2 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// appendMeta appends the JSON of a result's _meta. The one every modern
// result carries, the server's info alone, is written directly; any other
// goes through encoding/json.
func appendMeta(b []byte, m Meta) ([]byte, error) {
	if len(m) == 1 {
		var impl Implementation
		ok := true
		switch v := m[MetaKeyServerInfo].(type) {
		case Implementation:
			impl = v
		case *Implementation:
			ok = v != nil
			if ok {
				impl = *v
			}
		default:
			ok = false
		}
		if ok {
			b = append(b, `{"`+MetaKeyServerInfo+`":`...)
			b, err := appendImplementation(b, impl)
			return append(b, '}'), err
		}
	}
	raw, err := json.Marshal(m)
	return append(b, raw...), err
}

// metaSizeHint estimates the length of a result's _meta, for sizing a
// buffer: exact for the server's info alone, a guess for anything else.
func metaSizeHint(m Meta) int {
	if len(m) == 1 {
		switch v := m[MetaKeyServerInfo].(type) {
		case Implementation:
			return 5 + len(MetaKeyServerInfo) + implSizeHint(&v)
		case *Implementation:
			if v != nil {
				return 5 + len(MetaKeyServerInfo) + implSizeHint(v)
			}
		}
	}
	return 64 * len(m)
}

// implSizeHint is the length of appendImplementation's output for impl
// when its strings need no escapes.
func implSizeHint(impl *Implementation) int {
	n := 24 + len(impl.Name) + len(impl.Version)
	if impl.Title != "" {
		n += 11 + len(impl.Title)
	}
	if impl.Description != "" {
		n += 17 + len(impl.Description)
	}
	if impl.WebsiteURL != "" {
		n += 16 + len(impl.WebsiteURL)
	}
	if len(impl.Icons) > 0 {
		n += 128 * len(impl.Icons)
	}
	return n
}

// isZero reports whether c declares nothing, so that it encodes as {}.
func (c *ClientCapabilities) isZero() bool {
	return len(c.Experimental) == 0 && c.Roots == nil && c.Sampling == nil &&
		c.Elicitation == nil && c.Tasks == nil && len(c.Extensions) == 0
}

// isEmptyObject reports whether v is {} (with any spacing).
func isEmptyObject(v []byte) bool {
	i := jsonscan.SkipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return false
	}
	i = jsonscan.SkipSpace(v, i+1)
	return i < len(v) && v[i] == '}' && jsonscan.SkipSpace(v, i+1) == len(v)
}

// appendImplementation appends the JSON of an Implementation, as
// encoding/json would write it (same members, same order); one with icons
// goes through encoding/json.
func appendImplementation(b []byte, impl Implementation) ([]byte, error) {
	if len(impl.Icons) > 0 {
		v, err := json.Marshal(impl)
		return append(b, v...), err
	}
	b = append(b, `{"name":`...)
	b = appendQuoted(b, impl.Name)
	if impl.Title != "" {
		b = append(b, `,"title":`...)
		b = appendQuoted(b, impl.Title)
	}
	b = append(b, `,"version":`...)
	b = appendQuoted(b, impl.Version)
	if impl.Description != "" {
		b = append(b, `,"description":`...)
		b = appendQuoted(b, impl.Description)
	}
	if impl.WebsiteURL != "" {
		b = append(b, `,"websiteUrl":`...)
		b = appendQuoted(b, impl.WebsiteURL)
	}
	return append(b, '}'), nil
}

// decodeImplementation decodes an Implementation without encoding/json
// when it holds only string members with their exact names; anything else
// (icons, a name in another case, a value of another type) goes through
// encoding/json, so the result is always what json.Unmarshal gives. The
// strings share one allocation: src, which is string(v) (or "", and then
// made at the first member that needs it), and which they slice.
func decodeImplementation(v []byte, src string, impl *Implementation) error {
	slow := false
	err := eachMember(v, func(key []byte, escaped bool, val []byte) (bool, error) {
		var dst *string
		switch string(key) {
		case "name":
			dst = &impl.Name
		case "title":
			dst = &impl.Title
		case "version":
			dst = &impl.Version
		case "description":
			dst = &impl.Description
		case "websiteUrl":
			dst = &impl.WebsiteURL
		}
		if escaped || dst == nil {
			slow = true
			return true, nil
		}
		if isNull(val) {
			return false, nil // encoding/json leaves the field as it is
		}
		if !isVerbatimString(val) {
			slow = true
			return true, nil
		}
		if src == "" {
			src = string(v)
		}
		// val is a slice of v (eachMember), so its offset is what their
		// capacities differ by.
		off := cap(v) - cap(val)
		*dst = src[off+1 : off+len(val)-1]
		return false, nil
	})
	if err == nil && !slow {
		return nil
	}
	*impl = Implementation{}
	return json.Unmarshal(v, impl)
}
