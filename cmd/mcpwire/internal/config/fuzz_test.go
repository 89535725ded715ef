package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParse: the parser agrees with encoding/json on plain JSON (a text
// one accepts, the other does, with the same value, except that the
// parser keeps repeated names), and never fails on what it accepted
// with comments allowed after the comments are removed. Numbers are
// compared as text: the parser keeps a number as written, so 1E700 is
// valid JSON to both even though it does not fit a float64.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a": [1, 2.5e3, -0, "x\u00e9\n", true, false, null]}`, `{"mcpServers": {"a": {"command": "x"}}}`,
		"{\n// c\n\"a\": 1, /* d */ \"b\": [1,],\n}", `[`, `{"a":}`, `"\ud800"`, "\xef\xbb\xbf{}", `{"a":1,"a":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parse(data, false)
		var std any
		var stdErr error
		if json.Valid(data) {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			stdErr = dec.Decode(&std)
		} else {
			stdErr = json.Unmarshal(data, &std)
		}
		if len(data) >= 3 && string(data[:3]) == "\xef\xbb\xbf" {
			return // encoding/json does not skip a byte order mark
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%q: parse error %v, encoding/json error %v", data, err, stdErr)
		}
		if err == nil {
			if got := plain(v); !reflect.DeepEqual(got, std) && !hasRepeats(v) {
				t.Fatalf("%q: parsed %#v, encoding/json %#v", data, got, std)
			}
		}
		if _, err := parse(data, true); err != nil && stdErr == nil {
			t.Fatalf("%q: valid JSON refused with comments allowed: %v", data, err)
		}
	})
}

// plain converts a parsed value to what encoding/json decodes into any.
func plain(v *value) any {
	switch v.kind {
	case '{':
		m := map[string]any{}
		for _, mb := range v.members {
			m[mb.name] = plain(mb.val)
		}
		return m
	case '[':
		a := []any{}
		for _, e := range v.elems {
			a = append(a, plain(e))
		}
		return a
	case '"':
		return v.str
	case '0':
		return json.Number(v.num)
	case 't':
		return v.boolean
	}
	return nil
}

// hasRepeats reports whether an object in v repeats a name (encoding/json
// keeps the last; the parser keeps both).
func hasRepeats(v *value) bool {
	seen := map[string]bool{}
	for _, m := range v.members {
		if seen[m.name] || hasRepeats(m.val) {
			return true
		}
		seen[m.name] = true
	}
	for _, e := range v.elems {
		if hasRepeats(e) {
			return true
		}
	}
	return false
}
