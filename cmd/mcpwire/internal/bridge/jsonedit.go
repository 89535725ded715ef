package bridge

import (
	"bytes"
	"encoding/json"
)

// The bridge forwards messages as they are, with two exceptions on the
// pooled children of the modern era, where the requests of many clients
// share one process: the ids that name a request inside a message (a
// progress token, a subscription id) are swapped for the bridge's own on
// the way in and back on the way out. These helpers find and replace one
// member of a JSON object in place, so that every other byte of the
// message stays as the peer wrote it.

// findMember returns the byte span [start, end) of the value of the member
// at path (object keys, outermost first) in the JSON value data, and
// whether there is one. data comes from a message the strict decoder of
// package jsonrpc accepted, so members are unique.
func findMember(data []byte, path ...string) (start, end int, ok bool) {
	if len(path) == 0 || !bytes.Contains(data, []byte(path[len(path)-1])) {
		return 0, 0, false // the common case: the key is nowhere
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for depth, key := range path {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return 0, 0, false
		}
		found := false
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return 0, 0, false
			}
			if k, _ := t.(string); k == key {
				found = true
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return 0, 0, false
			}
		}
		if !found {
			return 0, 0, false
		}
		if depth == len(path)-1 {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return 0, 0, false
			}
			end = int(dec.InputOffset())
			return end - len(v), end, true
		}
	}
	return 0, 0, false
}

// member returns the raw value of the member at path, or nil.
func member(data []byte, path ...string) []byte {
	start, end, ok := findMember(data, path...)
	if !ok {
		return nil
	}
	return data[start:end]
}

// replaceMember returns a copy of data whose member at path has the value
// v, and the value it had; ok is false, and data is returned as it is,
// when there is no such member.
func replaceMember(data []byte, v []byte, path ...string) (out, old []byte, ok bool) {
	start, end, ok := findMember(data, path...)
	if !ok {
		return data, nil, false
	}
	out = make([]byte, 0, len(data)-(end-start)+len(v))
	out = append(append(append(out, data[:start]...), v...), data[end:]...)
	return out, data[start:end], true
}
