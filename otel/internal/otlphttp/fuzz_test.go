package otlphttp

import (
	"bytes"
	"encoding/binary"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// FuzzAttributes encodes spans whose attributes (of the span, an event
// and a link) are made of the fuzzer's bytes, of every type and nested,
// and checks that proto.Unmarshal reads the bytes back into the message
// the official exporter sends for them, byte for byte the same. Strings
// that are not UTF-8, which the official exporter refuses, are given to
// it repaired as the encoder repairs them.
func FuzzAttributes(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 3, 'a', 'b', 'c', 3, 0})
	f.Add([]byte{1, 1, 0x80, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0xff, 0xf8, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 2, 0xff, 'x', 7, 3, 1, 'a', 0, 2, 0xc3, 0x28})
	f.Add([]byte{9, 3, 10, 2, 1, 'k', 0, 1, 'm', 11, 4, 2, 1, 0, 11, 8, 3, 1, 2, 3})
	f.Add([]byte{6, 2, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80, 5, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add(bytes.Repeat([]byte{9, 3}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		var attrs []attribute.KeyValue
		for len(r.b) > 0 && len(attrs) < 32 {
			attrs = append(attrs, attribute.KeyValue{Key: attribute.Key(r.str()), Value: r.value(0)})
		}
		e := encoder{}
		e.traces(toSDK(fuzzSpans(attrs)))
		var got coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(e.b, &got); err != nil {
			t.Fatalf("proto.Unmarshal: %v\nbytes: %q", err, e.b)
		}

		c := &capture{}
		if err := officialTraces(t, "http://otlp.invalid", &http.Client{Transport: c}, fuzzSpans(repairAll(attrs))); err != nil {
			t.Fatalf("the official exporter: %v", err)
		}
		var want coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(c.last(t), &want); err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&want, &got) {
			t.Fatalf("the messages differ:\nofficial: %v\nours:     %v", &want, &got)
		}
		if !bytes.Equal(c.last(t), e.b) {
			t.Fatalf("the bytes differ at %d:\nofficial: %q\nours:     %q", firstDiff(c.last(t), e.b), c.last(t), e.b)
		}
	})
}

// fuzzSpans returns a span with attrs, an event and a link with them too.
func fuzzSpans(attrs []attribute.KeyValue) []sdktrace.ReadOnlySpan {
	link := trace.NewSpanContext(trace.SpanContextConfig{TraceID: otherID, SpanID: spanID(3)})
	return tracetest.SpanStubs{{
		Name: "fuzz", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID(1)}),
		StartTime: start, EndTime: start.Add(time.Second), Attributes: attrs,
		Events:   []sdktrace.Event{{Name: "e", Time: start, Attributes: attrs}},
		Links:    []sdktrace.Link{{SpanContext: link, Attributes: attrs}},
		Resource: resOther, InstrumentationScope: scopeName,
	}}.Snapshots()
}

// fuzzReader makes values of the fuzzer's bytes; it reads zeros when
// they run out.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) u64() uint64 {
	var b [8]byte
	n := copy(b[:], r.b)
	r.b = r.b[n:]
	return binary.LittleEndian.Uint64(b[:])
}

// str reads a length byte and that many bytes (up to 64): any bytes,
// UTF-8 or not.
func (r *fuzzReader) str() string {
	n := min(int(r.byte()&63), len(r.b))
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *fuzzReader) count() int { return int(r.byte() & 7) }

func (r *fuzzReader) value(depth int) attribute.Value {
	switch r.byte() % 12 {
	case 0:
		return attribute.Value{}
	case 1:
		return attribute.BoolValue(r.byte()&1 == 1)
	case 2:
		return attribute.Int64Value(int64(r.u64()))
	case 3:
		return attribute.Float64Value(math.Float64frombits(r.u64()))
	case 4:
		return attribute.StringValue(r.str())
	case 5:
		v := make([]bool, r.count())
		for i := range v {
			v[i] = r.byte()&1 == 1
		}
		return attribute.BoolSliceValue(v)
	case 6:
		v := make([]int64, r.count())
		for i := range v {
			v[i] = int64(r.u64())
		}
		return attribute.Int64SliceValue(v)
	case 7:
		v := make([]float64, r.count())
		for i := range v {
			v[i] = math.Float64frombits(r.u64())
		}
		return attribute.Float64SliceValue(v)
	case 8:
		v := make([]string, r.count())
		for i := range v {
			v[i] = r.str()
		}
		return attribute.StringSliceValue(v)
	case 9:
		return attribute.ByteSliceValue([]byte(r.str()))
	case 10:
		if depth > 3 {
			return attribute.Value{}
		}
		v := make([]attribute.Value, r.count())
		for i := range v {
			v[i] = r.value(depth + 1)
		}
		return attribute.SliceValue(v...)
	default:
		if depth > 3 {
			return attribute.Value{}
		}
		v := make([]attribute.KeyValue, r.count())
		for i := range v {
			// A map's keys are sorted: repairing them after would change
			// their order, so they are made UTF-8 here.
			v[i] = attribute.KeyValue{Key: attribute.Key(repair(r.str())), Value: r.value(depth + 1)}
		}
		return attribute.MapValue(v...)
	}
}

// repairAll returns attrs with their strings, keys included, made UTF-8
// as the encoder makes them.
func repairAll(attrs []attribute.KeyValue) []attribute.KeyValue {
	out := make([]attribute.KeyValue, len(attrs))
	for i, kv := range attrs {
		out[i] = attribute.KeyValue{Key: attribute.Key(repair(string(kv.Key))), Value: repairValue(kv.Value)}
	}
	return out
}

func repair(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func repairValue(v attribute.Value) attribute.Value {
	switch v.Type() {
	case attribute.STRING:
		return attribute.StringValue(repair(v.AsString()))
	case attribute.STRINGSLICE:
		ss := slices.Clone(v.AsStringSlice())
		for i := range ss {
			ss[i] = repair(ss[i])
		}
		return attribute.StringSliceValue(ss)
	case attribute.SLICE:
		vs := slices.Clone(v.AsSlice())
		for i := range vs {
			vs[i] = repairValue(vs[i])
		}
		return attribute.SliceValue(vs...)
	case attribute.MAP:
		return attribute.MapValue(repairAll(v.AsMap())...)
	}
	return v
}
