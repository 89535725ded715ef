package sdk

import (
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// What becomes of an attribute value a span records: a map value keeps
// one entry per key (the last given), an array or map nested deeper than
// maxDepth is empty, and, under a length limit, strings and byte slices,
// those in arrays and maps included, are cut to that many characters
// (bytes for a byte slice). The official Go SDK does the same to span
// attributes; here the length limit applies to the attributes of events
// and links as well, as the specification says it does.

// maxDepth bounds the nesting of an attribute value: the value itself is
// at depth 1.
const maxDepth = 64

// normalize returns v as a span keeps it under the length limit (-1 for
// none), and whether that is another value.
func normalize(v attribute.Value, limit int) (attribute.Value, bool) {
	changed := false
	switch v.Type() {
	case attribute.SLICE, attribute.MAP:
		v, changed = shape(v, maxDepth)
	}
	if limit >= 0 {
		var c bool
		v, c = truncateValue(v, limit)
		changed = changed || c
	}
	return v, changed
}

// normalizeAll returns attrs normalized, in a copy if anything changed
// (attrs is the caller's), and whether anything did.
func normalizeAll(attrs []attribute.KeyValue, limit int) ([]attribute.KeyValue, bool) {
	var out []attribute.KeyValue
	for i, kv := range attrs {
		v, changed := normalize(kv.Value, limit)
		if out == nil {
			if !changed {
				continue
			}
			out = make([]attribute.KeyValue, len(attrs))
			copy(out, attrs[:i])
		}
		out[i] = attribute.KeyValue{Key: kv.Key, Value: v}
	}
	if out == nil {
		return attrs, false
	}
	return out, true
}

// shape bounds the depth of v, depth being how many levels it may have,
// and keeps the last entry of each key of its maps. It reports whether
// it changed v.
func shape(v attribute.Value, depth int) (attribute.Value, bool) {
	switch v.Type() {
	case attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE, attribute.STRINGSLICE, attribute.BYTESLICE:
		if depth <= 0 {
			return attribute.Value{}, true
		}
	case attribute.SLICE:
		if depth <= 0 {
			return attribute.Value{}, true
		}
		elems := v.AsSlice() // a copy
		changed := false
		for i, e := range elems {
			if n, c := shape(e, depth-1); c {
				elems[i], changed = n, true
			}
		}
		if changed {
			return attribute.SliceValue(elems...), true
		}
	case attribute.MAP:
		if depth <= 0 {
			return attribute.Value{}, true
		}
		// AsMap is a copy sorted by key, stably: the entries of a key
		// are together, in the order given.
		kvs := v.AsMap()
		out := kvs[:0]
		changed := false
		for i, kv := range kvs {
			if i+1 < len(kvs) && kvs[i+1].Key == kv.Key {
				changed = true
				continue // a later entry of the key wins
			}
			if n, c := shape(kv.Value, depth-1); c {
				kv.Value, changed = n, true
			}
			out = append(out, kv)
		}
		if changed {
			return attribute.MapValue(out...), true
		}
	}
	return v, false
}

// truncateValue cuts the strings and byte slices of v to limit
// characters (bytes), reporting whether it cut any.
func truncateValue(v attribute.Value, limit int) (attribute.Value, bool) {
	switch v.Type() {
	case attribute.STRING:
		if s := v.AsString(); len(s) > limit {
			if t := truncate(s, limit); len(t) != len(s) {
				return attribute.StringValue(t), true
			}
		}
	case attribute.BYTESLICE:
		if b := v.AsByteSlice(); len(b) > limit {
			return attribute.ByteSliceValue(b[:limit]), true
		}
	case attribute.STRINGSLICE:
		ss := v.AsStringSlice() // a copy
		changed := false
		for i, s := range ss {
			if len(s) > limit {
				if t := truncate(s, limit); len(t) != len(s) {
					ss[i], changed = t, true
				}
			}
		}
		if changed {
			return attribute.StringSliceValue(ss), true
		}
	case attribute.SLICE:
		elems := v.AsSlice()
		changed := false
		for i, e := range elems {
			if n, c := truncateValue(e, limit); c {
				elems[i], changed = n, true
			}
		}
		if changed {
			return attribute.SliceValue(elems...), true
		}
	case attribute.MAP:
		kvs := v.AsMap()
		changed := false
		for i, kv := range kvs {
			if n, c := truncateValue(kv.Value, limit); c {
				kvs[i].Value, changed = n, true
			}
		}
		if changed {
			return attribute.MapValue(kvs...), true
		}
	}
	return v, false
}

// truncate returns the first limit characters of s. A byte that is not
// UTF-8 is not a character: once one is met in what is kept, the bytes
// that are not UTF-8 are left out and the characters after them taken in
// their place (as the official Go SDK does). A string cut is shorter in
// bytes than s.
func truncate(s string, limit int) string {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b := make([]byte, i, len(s))
			copy(b, s[:i])
			for j := i; j < len(s) && n < limit; {
				r, size := utf8.DecodeRuneInString(s[j:])
				if r != utf8.RuneError || size != 1 {
					b = append(b, s[j:j+size]...)
					n++
				}
				j += size
			}
			return string(b)
		}
		if n == limit {
			return s[:i]
		}
		n++
		i += size
	}
	return s
}
