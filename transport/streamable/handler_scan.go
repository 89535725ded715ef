package streamable

import "encoding/json"

// This file reads single members out of request params without decoding
// them, so that classifying a request and checking its headers costs no
// allocation. The input has passed the strict decoder of package jsonrpc:
// it is well-formed JSON without duplicate keys, so the scanner only has
// to skip values, never to validate them.

// member returns the raw value of member key of the JSON object obj, or
// nil when obj is not an object or has no such member.
func member(obj []byte, key string) []byte {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	i++
	for {
		i = skipWS(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil
		}
		ks := i
		ke := skipString(obj, i)
		if ke < 0 {
			return nil
		}
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return nil
		}
		vs := skipWS(obj, i+1)
		ve := skipValue(obj, vs)
		if ve < 0 {
			return nil
		}
		if stringEquals(obj[ks:ke], key) {
			return obj[vs:ve]
		}
		i = skipWS(obj, ve)
		if i >= len(obj) || obj[i] != ',' {
			return nil
		}
		i++
	}
}

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

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"').
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = skipString(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
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
func stringEquals(raw []byte, s string) bool {
	if !isString(raw) {
		return false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c == '\\' {
			v, ok := jsonString(raw)
			return ok && v == s
		}
	}
	return string(inner) == s
}

// jsonString returns the text of the raw JSON string raw.
func jsonString(raw []byte) (string, bool) {
	if !isString(raw) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
