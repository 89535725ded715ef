package streamable

import "github.com/mcpwire/mcpwire/internal/jsonscan"

// This file reads single members out of request params without decoding
// them, so that classifying a request and checking its headers costs no
// allocation. The input has passed the strict decoder of package jsonrpc:
// it is well-formed JSON without duplicate keys, so the readers of
// internal/jsonscan only have to skip values, never to validate them.

// member returns the raw value of member key of the JSON object obj, or
// nil when obj is not an object or has no such member.
func member(obj []byte, key string) []byte { return jsonscan.Member(obj, key) }

// memberPath returns the raw value reached from obj through the member names
// of keys, or nil.
func memberPath(obj []byte, keys []string) []byte {
	for _, k := range keys {
		if obj = member(obj, k); obj == nil {
			return nil
		}
	}
	return obj
}

// isNull reports whether raw is absent or the JSON null.
func isNull(raw []byte) bool {
	return raw == nil || string(raw) == "null"
}

// isString reports whether raw is a JSON string.
func isString(raw []byte) bool {
	return len(raw) >= 2 && raw[0] == '"'
}

// stringEquals reports whether the raw JSON string raw stands for s.
func stringEquals(raw []byte, s string) bool { return jsonscan.StringEqual(raw, s) }

// jsonString returns the text of the raw JSON string raw.
func jsonString(raw []byte) (string, bool) { return jsonscan.Unquote(raw) }
