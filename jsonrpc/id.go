package jsonrpc

import (
	"encoding/json"
	"strconv"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// idKind tells which form of JSON value an ID holds.
type idKind uint8

const (
	idNone   idKind = iota // absent: the message is a notification, or null in a response
	idInt                  // an integer that fits in int64, held in n
	idNumber               // an integer too large for int64, held verbatim in s
	idString               // a string, held in s
)

// An ID identifies a request and its response. It is a string or an
// integer; the zero ID means "no id" (a notification) and is written as
// null in the rare error responses where JSON-RPC demands it.
//
// IDs are comparable values: use them as map keys or compare them with ==.
// Integers of any size round-trip exactly: those that fit in int64 are
// held as numbers, larger ones as their decimal text.
type ID struct {
	kind idKind
	n    int64
	s    string
}

// Int64ID returns the integer ID n.
func Int64ID(n int64) ID { return ID{kind: idInt, n: n} }

// StringID returns the string ID s.
func StringID(s string) ID { return ID{kind: idString, s: s} }

// IsValid reports whether id is a string or an integer, that is, whether
// it names a request. The zero ID is not valid.
func (id ID) IsValid() bool { return id.kind != idNone }

// IsString reports whether id is a string.
func (id ID) IsString() bool { return id.kind == idString }

// Int64 returns the integer value of id and true, or 0 and false if id is a
// string, absent, or an integer outside the int64 range.
func (id ID) Int64() (int64, bool) { return id.n, id.kind == idInt }

// Raw returns the id as a Go value: an int64, a string, a json.Number for
// integers beyond int64, or nil for the zero ID.
func (id ID) Raw() any {
	switch id.kind {
	case idInt:
		return id.n
	case idNumber:
		return json.Number(id.s)
	case idString:
		return id.s
	}
	return nil
}

// String returns the id as it appears on the wire: a decimal integer, a
// quoted string, or null.
func (id ID) String() string {
	return string(id.AppendJSON(nil))
}

// AppendJSON appends the JSON encoding of id to b.
func (id ID) AppendJSON(b []byte) []byte {
	switch id.kind {
	case idInt:
		return strconv.AppendInt(b, id.n, 10)
	case idNumber:
		return append(b, id.s...)
	case idString:
		return appendString(b, id.s)
	}
	return append(b, "null"...)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler. It accepts a string, an
// integer (of any size) or null; anything else is an error.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = trimSpace(data)
	v, err := parseID(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// parseID decodes a complete JSON value as an ID. null yields the zero ID.
func parseID(data []byte) (ID, error) {
	if len(data) == 0 {
		return ID{}, errInvalidID
	}
	switch c := data[0]; {
	case c == 'n':
		if string(data) == "null" {
			return ID{}, nil
		}
	case c == '"':
		s, ok := jsonscan.UnquoteStrict(data)
		if !ok {
			return ID{}, errInvalidID
		}
		return ID{kind: idString, s: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !jsonscan.IsInteger(data) {
			return ID{}, errInvalidID
		}
		if n, ok := jsonscan.ParseInt(data); ok {
			return ID{kind: idInt, n: n}, nil
		}
		return ID{kind: idNumber, s: string(data)}, nil
	}
	return ID{}, errInvalidID
}
