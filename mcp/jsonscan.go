package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// This file reads encoded JSON objects member by member without decoding
// them, for the places on the hot path that need one or two members: the
// _meta of request params, the "type" of a content block, the resultType
// of a result. The input has normally been validated already (by the
// jsonrpc decoder or by encoding/json before it calls UnmarshalJSON); the
// readers of internal/jsonscan still fail cleanly, never loop or panic,
// on malformed input. What is mcp's own: JSON null stands for an empty
// object or array, and the errors name the package.

var (
	errMalformed = errors.New("mcp: malformed JSON")
	errNotObject = errors.New("mcp: expected a JSON object")
)

// eachMember calls fn with the key (without quotes, possibly escaped) and
// the raw value of each member of the object obj, in order, until fn
// returns stop or an error. JSON null for obj is an object without members.
func eachMember(obj []byte, fn func(key []byte, escaped bool, value []byte) (stop bool, err error)) error {
	i := jsonscan.SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		if isNull(obj[i:]) {
			return nil
		}
		return errNotObject
	}
	var ferr error
	ok := jsonscan.EachMember(obj, i, func(key []byte, escaped bool, v []byte) bool {
		stop, err := fn(key, escaped, v)
		ferr = err
		return err == nil && !stop
	})
	if ferr != nil {
		return ferr
	}
	if !ok {
		return errMalformed
	}
	return nil
}

// keyString returns a key found by eachMember as a string.
func keyString(key []byte, escaped bool) (string, error) {
	return jsonscan.KeyString(key, escaped), nil
}

// keyIs reports whether a key found by eachMember equals name.
func keyIs(key []byte, escaped bool, name string) bool {
	return jsonscan.KeyEqual(key, escaped, name)
}

// findMember returns the raw value of the member name of the object obj.
func findMember(obj []byte, name string) (value []byte, found bool, err error) {
	err = eachMember(obj, func(key []byte, escaped bool, v []byte) (bool, error) {
		if keyIs(key, escaped, name) {
			value, found = v, true
			return true, nil
		}
		return false, nil
	})
	return value, found, err
}

// rawString returns the JSON string value v (quotes included) as a Go
// string, decoded as encoding/json decodes it.
func rawString(v []byte) (string, bool) { return jsonscan.Unquote(v) }

// isVerbatimString reports whether v is a JSON string whose value is its
// text between the quotes: no escapes, valid UTF-8.
func isVerbatimString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	end, escaped := jsonscan.SkipString(v, 0)
	return end == len(v) && !escaped
}

// isNull reports whether the raw value v is JSON null.
func isNull(v []byte) bool {
	i := jsonscan.SkipSpace(v, 0)
	return len(v)-i >= 4 && string(v[i:i+4]) == "null" && jsonscan.SkipSpace(v, i+4) == len(v)
}

// firstByte returns the first non-space byte of data, or 0.
func firstByte(data []byte) byte {
	i := jsonscan.SkipSpace(data, 0)
	if i < len(data) {
		return data[i]
	}
	return 0
}

// fieldError reports a member of the wrong shape.
func fieldError(where, key, want string) error {
	return fmt.Errorf("mcp: %s[%q] must be %s", where, key, want)
}

// appendQuoted appends s to b as a JSON string. Plain printable ASCII is
// copied as it is; anything else goes through encoding/json.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// eachElement calls fn with each element of the array arr, in order. JSON
// null for arr is an array without elements.
func eachElement(arr []byte, fn func(elem []byte) error) error {
	i := jsonscan.SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		if isNull(arr[i:]) {
			return nil
		}
		return errors.New("mcp: expected a JSON array")
	}
	var ferr error
	ok := jsonscan.EachElement(arr, i, func(elem []byte) bool {
		ferr = fn(elem)
		return ferr == nil
	})
	if ferr != nil {
		return ferr
	}
	if !ok {
		return errMalformed
	}
	return nil
}
