package jsonschema

import "github.com/mcpwire/mcpwire/internal/jsonscan"

// EachMember calls fn with the key and the raw value of each member of
// the JSON object obj, in order, until fn returns false. key is the raw
// key between its quotes and escaped tells whether it must be decoded (it
// holds escapes or invalid UTF-8). obj must be well-formed JSON (the
// strict decoder or Validate has seen it); EachMember reports false if it
// is not an object or turns out malformed, and true otherwise, even when
// fn stopped early.
func EachMember(obj []byte, fn func(key []byte, escaped bool, value []byte) bool) bool {
	return jsonscan.EachMember(obj, jsonscan.SkipSpace(obj, 0), fn)
}
