package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// A ResultEnvelope is what a modern (2026-07-28) result says of itself
// besides its content: its resultType and, in _meta, the server's info.
// It is to results what the typed fields of RequestMeta are to requests.
// ReadResultEnvelope finds both in one pass over an encoded result; a
// client reads Type to tell a final result from one that asks for input,
// and decodes the result with Decode, which leaves the server's info out
// of the result's Meta (the client keeps it once for the session rather
// than a copy in every result).
type ResultEnvelope struct {
	// Type is the result's resultType; ResultTypeComplete when absent.
	Type ResultType
	// ServerInfo is the raw value of
	// _meta["io.modelcontextprotocol/serverInfo"], a slice of the
	// encoded result (copy it to keep it); nil when absent.
	ServerInfo json.RawMessage

	infoAlone bool // the server's info is the only member of _meta
}

// ReadResultEnvelope reads the envelope of the encoded result data.
func ReadResultEnvelope(data []byte) (ResultEnvelope, error) {
	e := ResultEnvelope{Type: ResultTypeComplete}
	metas := 0
	err := eachMember(data, func(key []byte, escaped bool, v []byte) (bool, error) {
		switch {
		case keyIs(key, escaped, "resultType"):
			t, ok := internRaw(v, resultTypes[:])
			if !ok {
				return true, fmt.Errorf("mcp: resultType must be a string")
			}
			e.Type = t
		case keyIs(key, escaped, "_meta"):
			metas++
			n := 0
			err := eachMember(v, func(key []byte, escaped bool, v []byte) (bool, error) {
				n++
				if keyIs(key, escaped, MetaKeyServerInfo) && !isNull(v) {
					e.ServerInfo = v
				}
				return false, nil
			})
			if err != nil {
				return true, fmt.Errorf("mcp: result _meta: %w", err)
			}
			e.infoAlone = e.ServerInfo != nil && n == 1 && metas == 1
		}
		return false, nil
	})
	return e, err
}

// Decode decodes data, the result the envelope was read from, into v (a
// pointer to a result type of this package, or to any struct encoding/json
// decodes) with the server's info taken out of its Meta field: a Meta that
// held nothing else is nil. Data is valid JSON, as a JSON-RPC decoder
// hands it over.
func (e *ResultEnvelope) Decode(data []byte, v any) error {
	if e.ServerInfo == nil {
		return decodeValid(data, v)
	}
	if d, ok := v.(interface{ decodeResult([]byte, bool) error }); ok {
		return d.decodeResult(data, e.infoAlone)
	}
	if err := decodeValid(data, v); err != nil {
		return err
	}
	dropServerInfo(v)
	return nil
}

// decodeValid decodes valid JSON into v, calling its UnmarshalJSON
// directly when it has one (encoding/json would check the input again).
func decodeValid(data []byte, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(data)
	}
	return json.Unmarshal(data, v)
}

var metaType = reflect.TypeFor[Meta]()

// dropServerInfo removes the server's info from the Meta field of the
// struct v points to, if it has one.
func dropServerInfo(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return
	}
	f := rv.Elem().FieldByName("Meta")
	if !f.IsValid() || f.Type() != metaType || !f.CanSet() {
		return
	}
	m := f.Interface().(Meta)
	delete(m, MetaKeyServerInfo)
	if len(m) == 0 {
		f.SetZero()
	}
}
