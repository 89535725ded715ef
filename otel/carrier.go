package otel

import (
	"encoding/json"

	"go.opentelemetry.io/otel/propagation"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// maxFields bounds the _meta keys one propagator may use: the W3C trace
// context and baggage use three (traceparent, tracestate, baggage, the
// keys SEP-414 reserves in _meta).
const maxFields = 8

// A carrier holds the trace context of one message, as the _meta entries
// a propagator reads and writes: a propagation.TextMapCarrier over the
// propagator's fields (its Fields). Keys outside them are not carried.
type carrier struct {
	keys []string // the propagator's fields, at most maxFields
	vals [maxFields]string
}

var _ propagation.TextMapCarrier = (*carrier)(nil)

// index returns the index of the key found by a jsonscan reader, or -1.
func (c *carrier) index(key []byte, escaped bool) int {
	for i, k := range c.keys {
		if jsonscan.KeyEqual(key, escaped, k) {
			return i
		}
	}
	return -1
}

// Get returns the value of key, or "".
func (c *carrier) Get(key string) string {
	for i, k := range c.keys {
		if k == key {
			return c.vals[i]
		}
	}
	return ""
}

// Set sets key to value; a key that is not one of the propagator's
// fields is dropped.
func (c *carrier) Set(key, value string) {
	for i, k := range c.keys {
		if k == key {
			c.vals[i] = value
			return
		}
	}
}

// Keys lists the keys that have a value.
func (c *carrier) Keys() []string {
	var out []string
	for i, k := range c.keys {
		if c.vals[i] != "" {
			out = append(out, k)
		}
	}
	return out
}

// empty reports whether no key has a value.
func (c *carrier) empty() bool {
	for i := range c.keys {
		if c.vals[i] != "" {
			return false
		}
	}
	return true
}

// size is the length of the members appendMembers writes, escapes aside.
func (c *carrier) size() int {
	n := 0
	for i, k := range c.keys {
		if c.vals[i] != "" {
			n += len(k) + len(c.vals[i]) + 6
		}
	}
	return n
}

// appendMembers appends the entries that have a value, and are not marked
// present, as JSON object members separated by commas.
func (c *carrier) appendMembers(b []byte, present *[maxFields]bool) []byte {
	first := true
	for i, k := range c.keys {
		if c.vals[i] == "" || present != nil && present[i] {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendQuoted(b, k)
		b = append(b, ':')
		b = appendQuoted(b, c.vals[i])
	}
	return b
}

// appendQuoted appends s as a JSON string. Trace context is printable
// ASCII (W3C headers), written as it is; anything else goes through
// encoding/json.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
