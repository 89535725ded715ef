package bridge

import (
	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The bridge forwards messages as they are, with two exceptions on the
// pooled children of the modern era, where the requests of many clients
// share one process: the ids that name a request inside a message (a
// progress token, a subscription id) are swapped for the bridge's own on
// the way in and back on the way out. These helpers find and replace one
// member of a JSON object in place, so that every other byte of the
// message stays as the peer wrote it.
//
// Member names are compared by their decoded value, as the peer that
// reads the message compares them: "progress\u0054oken" is progressToken
// (a byte search would miss it, and let a client pass a progress token of
// its own choosing to a process that serves other clients too). The
// message comes from the strict decoder of package jsonrpc, which refused
// duplicate names (by value) and malformed JSON, so the first member of a
// name is the only one.

// findMember returns the byte span [start, end) of the value of the member
// at path (object keys, outermost first) in the JSON value data, and
// whether there is one.
func findMember(data []byte, path ...string) (start, end int, ok bool) {
	if len(path) == 0 {
		return 0, 0, false
	}
	at := 0
	for _, key := range path {
		found := false
		jsonscan.EachMember(data, jsonscan.SkipSpace(data, at), func(k []byte, escaped bool, v []byte) bool {
			if !jsonscan.KeyEqual(k, escaped, key) {
				return true
			}
			// v is data[start:end]: its offset is what its capacity lacks.
			start, end, found = cap(data)-cap(v), cap(data)-cap(v)+len(v), true
			return false
		})
		if !found {
			return 0, 0, false
		}
		at = start
	}
	return start, end, true
}

// A span locates a member's value in a message: data[start:end]; the
// zero span is no member.
type span struct{ start, end int }

// in returns the value of the span in data, or nil.
func (s span) in(data []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return data[s.start:s.end]
}

// findMembers sets spans[i] to the span of the value of the member
// names[i] of the object at data[at:], in one walk of it, for the
// messages of the hot path, which need several members of one object.
func findMembers(data []byte, at int, names []string, spans []span) {
	jsonscan.EachMember(data, jsonscan.SkipSpace(data, at), func(k []byte, escaped bool, v []byte) bool {
		for i, name := range names {
			if spans[i].end == 0 && jsonscan.KeyEqual(k, escaped, name) {
				start := cap(data) - cap(v)
				spans[i] = span{start, start + len(v)}
				break
			}
		}
		return true
	})
}

// member returns the raw value of the member at path, or nil.
func member(data []byte, path ...string) []byte {
	start, end, ok := findMember(data, path...)
	if !ok {
		return nil
	}
	return data[start:end]
}

// memberString returns the value of the member at path if it is a JSON
// string, decoded.
func memberString(data []byte, path ...string) (string, bool) {
	return decodeString(member(data, path...))
}

// decodeString returns the value of the JSON string v, if it is one.
func decodeString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return jsonscan.Unquote(v)
}

// memberID returns the value of the member at path if it is a string or
// an integer (a request id, a progress token), decoded: "a" and "\u0061"
// are one token.
func memberID(data []byte, path ...string) (jsonrpc.ID, bool) {
	v := member(data, path...)
	if v == nil {
		return jsonrpc.ID{}, false
	}
	var id jsonrpc.ID
	if id.UnmarshalJSON(v) != nil || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// replaceMember returns a copy of data whose member at path has the value
// v, and the value it had; ok is false, and data is returned as it is,
// when there is no such member.
func replaceMember(data []byte, v []byte, path ...string) (out, old []byte, ok bool) {
	start, end, ok := findMember(data, path...)
	if !ok {
		return data, nil, false
	}
	return replaceSpan(data, span{start, end}, v), data[start:end], true
}

// replaceSpan returns a copy of data whose bytes at sp are v.
func replaceSpan(data []byte, sp span, v []byte) []byte {
	out := make([]byte, 0, len(data)-(sp.end-sp.start)+len(v))
	return append(append(append(out, data[:sp.start]...), v...), data[sp.end:]...)
}
