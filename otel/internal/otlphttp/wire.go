package otlphttp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// The protobuf wire format, as much of it as OTLP needs
// (protobuf.dev/programming-guides/encoding): a message is a sequence of
// fields, each a tag (the field number and a wire type, as a varint)
// followed by its value: a varint, 8 or 4 little-endian bytes, or a
// varint length and that many bytes (strings, bytes, nested messages,
// packed repeated scalars).
//
// The writer follows what the official Go protobuf runtime does, so that
// its bytes are the ones proto.Marshal writes for the same message:
// fields in the order of their numbers, but those of a oneof after the
// others (the runtime keeps the order of the historic
// github.com/golang/protobuf); a proto3 scalar without presence
// left out when it is zero (a double when it is +0, not -0); a field of a
// oneof, an optional field and a nested message written whenever set,
// even when zero or empty; repeated scalars packed, and left out when
// empty. Where the runtime would refuse to encode (a string that is not
// UTF-8), the writer repairs instead.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireLen     = 2
	wireFixed32 = 5
)

// An encoder appends protobuf fields to b.
type encoder struct {
	b []byte
}

func (e *encoder) tag(field, wireType int) {
	e.b = binary.AppendUvarint(e.b, uint64(field)<<3|uint64(wireType))
}

// begin starts the nested message of field, leaving one byte for its
// length; end writes the length.
func (e *encoder) begin(field int) int {
	e.tag(field, wireLen)
	e.b = append(e.b, 0)
	return len(e.b)
}

// end writes the length of the message begun at start (what begin
// returned), moving its bytes right when the length takes more than the
// byte begin left for it.
func (e *encoder) end(start int) {
	n := len(e.b) - start
	if n < 0x80 {
		e.b[start-1] = byte(n)
		return
	}
	k := uvarintLen(uint64(n))
	var pad [binary.MaxVarintLen64]byte
	e.b = append(e.b, pad[:k-1]...)
	copy(e.b[start-1+k:], e.b[start:start+n])
	binary.PutUvarint(e.b[start-1:], uint64(n))
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Scalars without presence: left out when zero.

func (e *encoder) uvarint(field int, v uint64) {
	if v != 0 {
		e.tag(field, wireVarint)
		e.b = binary.AppendUvarint(e.b, v)
	}
}

func (e *encoder) boolean(field int, v bool) {
	if v {
		e.uvarint(field, 1)
	}
}

// sint32 writes a zigzag-encoded int32.
func (e *encoder) sint32(field int, v int32) {
	e.uvarint(field, uint64(uint32(v<<1)^uint32(v>>31)))
}

func (e *encoder) fixed64(field int, v uint64) {
	if v != 0 {
		e.fixed64Always(field, v)
	}
}

func (e *encoder) fixed32(field int, v uint32) {
	if v != 0 {
		e.tag(field, wireFixed32)
		e.b = binary.LittleEndian.AppendUint32(e.b, v)
	}
}

// double leaves +0 out, as proto.Marshal does, and writes -0.
func (e *encoder) double(field int, v float64) {
	e.fixed64(field, math.Float64bits(v))
}

func (e *encoder) str(field int, s string) {
	if s != "" {
		e.strAlways(field, s)
	}
}

func (e *encoder) bytes(field int, b []byte) {
	if len(b) != 0 {
		e.tag(field, wireLen)
		e.b = binary.AppendUvarint(e.b, uint64(len(b)))
		e.b = append(e.b, b...)
	}
}

// Fields of a oneof and optional fields: written whenever set.

func (e *encoder) uvarintAlways(field int, v uint64) {
	e.tag(field, wireVarint)
	e.b = binary.AppendUvarint(e.b, v)
}

func (e *encoder) fixed64Always(field int, v uint64) {
	e.tag(field, wireFixed64)
	e.b = binary.LittleEndian.AppendUint64(e.b, v)
}

func (e *encoder) doubleAlways(field int, v float64) {
	e.fixed64Always(field, math.Float64bits(v))
}

// strAlways writes s, its invalid UTF-8 replaced by U+FFFD: protobuf
// strings are UTF-8, and a receiver refuses the whole request for one
// that is not (the official exporters fail to encode it, and drop the
// batch).
func (e *encoder) strAlways(field int, s string) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	e.tag(field, wireLen)
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) bytesAlways(field int, b []byte) {
	e.tag(field, wireLen)
	e.b = binary.AppendUvarint(e.b, uint64(len(b)))
	e.b = append(e.b, b...)
}

// Packed repeated scalars: left out when empty.

func (e *encoder) packedFixed64(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	e.tag(field, wireLen)
	e.b = binary.AppendUvarint(e.b, uint64(8*len(vs)))
	for _, v := range vs {
		e.b = binary.LittleEndian.AppendUint64(e.b, v)
	}
}

func (e *encoder) packedDouble(field int, vs []float64) {
	if len(vs) == 0 {
		return
	}
	e.tag(field, wireLen)
	e.b = binary.AppendUvarint(e.b, uint64(8*len(vs)))
	for _, v := range vs {
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
	}
}

func (e *encoder) packedUvarint(field int, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	s := e.begin(field)
	for _, v := range vs {
		e.b = binary.AppendUvarint(e.b, v)
	}
	e.end(s)
}

// A decoder reads the fields of one message: what the exporter reads of
// a response (its partial_success, or the message of a google.rpc.Status).
type decoder struct {
	b []byte
}

var errMalformed = errors.New("malformed protobuf")

// next returns the next field: its number, its wire type, and its value
// (a varint or fixed value in v, the bytes of a length-delimited one in
// data). It returns field 0 at the end of the message.
func (d *decoder) next() (field, wireType int, v uint64, data []byte, err error) {
	if len(d.b) == 0 {
		return 0, 0, 0, nil, nil
	}
	t, n := binary.Uvarint(d.b)
	if n <= 0 || t>>3 == 0 || t>>3 > math.MaxInt32 {
		return 0, 0, 0, nil, errMalformed
	}
	d.b = d.b[n:]
	field, wireType = int(t>>3), int(t&7)
	switch wireType {
	case wireVarint:
		v, n = binary.Uvarint(d.b)
		if n <= 0 {
			return 0, 0, 0, nil, errMalformed
		}
		d.b = d.b[n:]
	case wireFixed64:
		if len(d.b) < 8 {
			return 0, 0, 0, nil, errMalformed
		}
		v, d.b = binary.LittleEndian.Uint64(d.b), d.b[8:]
	case wireFixed32:
		if len(d.b) < 4 {
			return 0, 0, 0, nil, errMalformed
		}
		v, d.b = uint64(binary.LittleEndian.Uint32(d.b)), d.b[4:]
	case wireLen:
		l, n := binary.Uvarint(d.b)
		if n <= 0 || l > uint64(len(d.b)-n) {
			return 0, 0, 0, nil, errMalformed
		}
		data, d.b = d.b[n:n+int(l)], d.b[n+int(l):]
	default: // groups, deprecated, are not in OTLP
		return 0, 0, 0, nil, fmt.Errorf("%w: wire type %d", errMalformed, wireType)
	}
	return field, wireType, v, data, nil
}

// partialSuccess reads the partial_success of an
// ExportTraceServiceResponse or an ExportMetricsServiceResponse (the
// same wire form: field 1, a message of rejected_spans or
// rejected_data_points, field 1, and error_message, field 2).
func partialSuccess(b []byte) (rejected int64, msg string, err error) {
	d := decoder{b}
	for {
		f, wt, _, data, err := d.next()
		switch {
		case err != nil:
			return 0, "", err
		case f == 0:
			return rejected, msg, nil
		case f == 1 && wt == wireLen:
			ps := decoder{data}
			for {
				f, wt, v, data, err := ps.next()
				if err != nil {
					return 0, "", err
				}
				if f == 0 {
					break
				}
				switch {
				case f == 1 && wt == wireVarint:
					rejected = int64(v)
				case f == 2 && wt == wireLen:
					msg = string(data)
				}
			}
		}
	}
}

// statusMessage reads the message (field 2) of a google.rpc.Status, the
// body an OTLP/HTTP server answers a failed request with.
func statusMessage(b []byte) (string, error) {
	d := decoder{b}
	msg := ""
	for {
		f, wt, _, data, err := d.next()
		switch {
		case err != nil:
			return "", err
		case f == 0:
			return msg, nil
		case f == 2 && wt == wireLen:
			msg = string(data)
		}
	}
}
