package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file reads encoded JSON objects member by member without decoding
// them, for the places on the hot path that need one or two members: the
// _meta of request params, the "type" of a content block, the resultType
// of a result. The input has normally been validated already (by the
// jsonrpc decoder or by encoding/json before it calls UnmarshalJSON); the
// scanner still fails cleanly, never loops or panics, on malformed input.

var (
	errMalformed = errors.New("mcp: malformed JSON")
	errNotObject = errors.New("mcp: expected a JSON object")
)

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i]
// (which must be '"'), and whether it contains escapes.
func skipString(b []byte, i int) (int, bool, error) {
	escaped := false
	for i++; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i + 1, escaped, nil
		case '\\':
			escaped = true
			i++
		}
	}
	return 0, false, errMalformed
}

// skipValue returns the index just past the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformed
	}
	switch b[i] {
	case '"':
		end, _, err := skipString(b, i)
		return end, err
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, _, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errMalformed
	}
	// A number or a literal: runs to the next delimiter.
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if i == start {
				return 0, errMalformed
			}
			return i, nil
		}
		i++
	}
	if i == start {
		return 0, errMalformed
	}
	return i, nil
}

// eachMember calls fn with the key (without quotes, possibly escaped) and
// the raw value of each member of the object obj, in order, until fn
// returns stop or an error. JSON null for obj is an object without members.
func eachMember(obj []byte, fn func(key []byte, escaped bool, value []byte) (stop bool, err error)) error {
	i := skipSpace(obj, 0)
	if i < len(obj) && obj[i] == 'n' && bytes.Equal(bytes.TrimSpace(obj[i:]), []byte("null")) {
		return nil
	}
	if i >= len(obj) || obj[i] != '{' {
		return errNotObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return errMalformed
		}
		end, escaped, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errMalformed
		}
		i = skipSpace(obj, i+1)
		vend, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		stop, err := fn(key, escaped, obj[i:vend])
		if err != nil || stop {
			return err
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) {
			return errMalformed
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return nil
		default:
			return errMalformed
		}
	}
}

// keyString returns a key found by eachMember as a string.
func keyString(key []byte, escaped bool) (string, error) {
	if !escaped {
		return string(key), nil
	}
	var s string
	// The key sits between quotes in the original buffer; quote it again
	// rather than reach outside the slice.
	q := make([]byte, 0, len(key)+2)
	q = append(append(append(q, '"'), key...), '"')
	if err := json.Unmarshal(q, &s); err != nil {
		return "", err
	}
	return s, nil
}

// keyIs reports whether a key found by eachMember equals name.
func keyIs(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	s, err := keyString(key, escaped)
	return err == nil && s == name
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
// string, without allocating through encoding/json when it has no escapes.
func rawString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// isNull reports whether the raw value v is JSON null.
func isNull(v []byte) bool {
	return string(bytes.TrimSpace(v)) == "null"
}

// firstByte returns the first non-space byte of data, or 0.
func firstByte(data []byte) byte {
	i := skipSpace(data, 0)
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
	i := skipSpace(arr, 0)
	if i < len(arr) && arr[i] == 'n' && isNull(arr[i:]) {
		return nil
	}
	if i >= len(arr) || arr[i] != '[' {
		return errors.New("mcp: expected a JSON array")
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(arr, i)
		if err != nil {
			return err
		}
		if err := fn(arr[i:end]); err != nil {
			return err
		}
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return errMalformed
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return nil
		default:
			return errMalformed
		}
	}
}
