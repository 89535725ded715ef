package otlphttp

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// What traces and metrics share (opentelemetry/proto/common/v1 and
// resource/v1): attributes, the resource and the instrumentation scope.

// keyValue writes a KeyValue: key 1, value 2 (an AnyValue, always
// present, empty for an EMPTY value).
func (e *encoder) keyValue(field int, kv attribute.KeyValue) {
	s := e.begin(field)
	e.str(1, string(kv.Key))
	e.anyValue(2, kv.Value)
	e.end(s)
}

// anyValue writes an AnyValue, a oneof: string_value 1, bool_value 2,
// int_value 3, double_value 4, array_value 5, kvlist_value 6,
// bytes_value 7. Slices are arrays of AnyValues; a value of a type this
// version does not know is the string "INVALID", as the official
// exporters write it.
func (e *encoder) anyValue(field int, v attribute.Value) {
	s := e.begin(field)
	switch v.Type() {
	case attribute.EMPTY:
	case attribute.BOOL:
		e.boolValue(v.AsBool())
	case attribute.INT64:
		e.uvarintAlways(3, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		e.doubleAlways(4, v.AsFloat64())
	case attribute.STRING:
		e.strAlways(1, v.AsString())
	case attribute.BYTESLICE:
		e.bytesAlways(7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		a := e.begin(5)
		for _, x := range v.AsBoolSlice() {
			i := e.begin(1)
			e.boolValue(x)
			e.end(i)
		}
		e.end(a)
	case attribute.INT64SLICE:
		a := e.begin(5)
		for _, x := range v.AsInt64Slice() {
			i := e.begin(1)
			e.uvarintAlways(3, uint64(x))
			e.end(i)
		}
		e.end(a)
	case attribute.FLOAT64SLICE:
		a := e.begin(5)
		for _, x := range v.AsFloat64Slice() {
			i := e.begin(1)
			e.doubleAlways(4, x)
			e.end(i)
		}
		e.end(a)
	case attribute.STRINGSLICE:
		a := e.begin(5)
		for _, x := range v.AsStringSlice() {
			i := e.begin(1)
			e.strAlways(1, x)
			e.end(i)
		}
		e.end(a)
	case attribute.SLICE:
		a := e.begin(5)
		for _, x := range v.AsSlice() {
			e.anyValue(1, x)
		}
		e.end(a)
	case attribute.MAP:
		m := e.begin(6)
		for _, kv := range v.AsMap() {
			e.keyValue(1, kv)
		}
		e.end(m)
	default:
		e.strAlways(1, "INVALID")
	}
	e.end(s)
}

func (e *encoder) boolValue(b bool) {
	var v uint64
	if b {
		v = 1
	}
	e.uvarintAlways(2, v)
}

// attrs writes each attribute as a repeated KeyValue field.
func (e *encoder) attrs(field int, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		e.keyValue(field, kv)
	}
}

// set writes the attributes of a set, in its order (by key).
func (e *encoder) set(field int, s *attribute.Set) {
	for i := range s.Len() {
		kv, _ := s.Get(i)
		e.keyValue(field, kv)
	}
}

// resource writes a Resource: attributes 1. A nil resource is left out.
func (e *encoder) resource(field int, r *sdk.Resource) {
	if r == nil {
		return
	}
	s := e.begin(field)
	e.set(1, r.Set())
	e.end(s)
}

// scope writes an InstrumentationScope: name 1, version 2, attributes 3
// (its schema URL is the ScopeSpans' or ScopeMetrics').
func (e *encoder) scope(field int, sc *sdk.Scope) {
	s := e.begin(field)
	e.str(1, sc.Name)
	e.str(2, sc.Version)
	e.set(3, &sc.Attributes)
	e.end(s)
}

// unixNano is t in nanoseconds since the epoch; 0 before it (and for the
// zero time).
func unixNano(t time.Time) uint64 {
	return uint64(max(0, t.UnixNano()))
}

// clampUint32 bounds a count to the uint32 of the wire.
func clampUint32(v int) uint32 {
	return uint32(min(max(v, 0), math.MaxUint32))
}
