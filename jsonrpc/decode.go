package jsonrpc

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// A DecodeError reports a frame that is not a valid JSON-RPC message. The
// connection stays usable: the frame is answered with Response() and
// reading goes on.
type DecodeError struct {
	// ID is the id of the offending request when it could be read (the
	// frame had a "method" and a valid "id"); otherwise the zero ID, which
	// is written as null.
	ID ID
	// Err is the error to report: CodeParseError for text that is not
	// JSON (including invalid UTF-8), CodeInvalidRequest for JSON that is
	// not a valid message (unknown or duplicate members, wrong types, a
	// message too large or nested too deep, an empty batch).
	Err *Error
	// ResponseID is the frame's id when the frame is not a request (it
	// has no "method") and its "id" could be read, even from a frame cut
	// short or nested too deep: the frame was meant as the response to
	// that call. A Conn fails the call, if it is waiting, with a
	// *FrameError rather than let it wait for a response that will not
	// come.
	ResponseID ID
	// IsResponse reports that the frame was meant as a response: it has
	// a "result" or an "error" and no "method". A Conn does not answer
	// it (a response is never answered).
	IsResponse bool
	// Frame is a copy of the start of the frame, at most MaxFrameExcerpt
	// bytes, and Size the frame's length in bytes (0 when it was too
	// large to be read whole), for diagnostics.
	Frame []byte
	Size  int
}

// Error implements the error interface.
func (e *DecodeError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// Response returns the error response that answers the frame.
func (e *DecodeError) Response() *Response { return &Response{ID: e.ID, Error: e.Err} }

// A Decoder turns frames into messages, strictly: member names are
// case-sensitive, unknown members and duplicate keys (at any depth) are
// rejected, "jsonrpc" must be "2.0", ids must be strings or integers,
// strings must be valid UTF-8, and the size, depth and batch limits hold.
//
// A Decoder is safe for concurrent use. The zero Decoder uses the default
// limits.
type Decoder struct {
	limits Limits
	names  map[string]string
}

// NewDecoder returns a decoder with the given limits. The method names
// listed are returned without allocating when they appear in a message.
func NewDecoder(limits Limits, methods ...string) *Decoder {
	d := &Decoder{limits: limits}
	if len(methods) > 0 {
		d.names = make(map[string]string, len(methods))
		for _, m := range methods {
			d.names[m] = m
		}
	}
	return d
}

// Limits returns the decoder's limits.
func (dec *Decoder) Limits() Limits {
	if dec == nil {
		return Limits{}
	}
	return dec.limits
}

// Decode decodes one frame: a message, or a batch when the frame is a JSON
// array. The returned message refers to data (params and results are
// sub-slices of it), so data must not be modified afterwards. A frame that
// is not a valid message yields a *DecodeError.
func Decode(data []byte, limits *Limits) (Message, error) {
	var dec Decoder
	if limits != nil {
		dec.limits = *limits
	}
	return dec.Decode(data)
}

// Decode decodes one frame; see the package-level Decode.
func (dec *Decoder) Decode(data []byte) (Message, error) {
	var lim *Limits
	if dec != nil {
		lim = &dec.limits
	}
	if max := lim.MessageSize(); len(data) > max {
		e := &DecodeError{Err: Errorf(CodeInvalidRequest, "Invalid Request: message of %d bytes exceeds the limit of %d bytes", len(data), max)}
		return nil, e.tell(data, len(data)) // in memory already: peek reads it all, without recursion
	}
	kp := keysPool.Get().(*[]keySpan)
	d := scanner{data: data, maxDepth: lim.Depth(), dec: dec, keys: (*kp)[:0]}
	defer func() {
		if cap(d.keys) <= 256 {
			*kp = d.keys[:0]
			keysPool.Put(kp)
		}
	}()
	d.skipWS()
	if d.pos == len(data) {
		return nil, &DecodeError{Err: NewError(CodeParseError, "Parse error: empty message")}
	}
	var (
		msg  Message
		derr *DecodeError
	)
	switch data[d.pos] {
	case '{':
		msg, derr = d.message(1)
	case '[':
		msg, derr = d.batch(lim.BatchSize())
	default:
		if d.value(0) {
			derr = &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: a message must be a JSON object or array")}
		}
	}
	if d.err == nil {
		d.skipWS()
		if d.pos != len(data) {
			d.syntax("data after the message")
		}
	}
	if d.err != nil {
		return nil, d.err.tell(data, len(data))
	}
	if derr != nil {
		return nil, derr.tell(data, len(data))
	}
	return msg, nil
}

// Valid reports whether data is one JSON value that this package's rules
// accept: well-formed, valid UTF-8, no duplicate keys, within the depth
// limit. It does not check that the value is a JSON-RPC message.
func Valid(data []byte, limits *Limits) error {
	d := scanner{data: data, maxDepth: limits.Depth()}
	d.skipWS()
	if d.value(0) {
		d.skipWS()
		if d.pos != len(data) {
			d.syntax("data after the value")
		}
	}
	if d.err != nil {
		return d.err
	}
	if d.invalid != "" {
		return &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: "+d.invalid)}
	}
	return nil
}

// scanner validates JSON text in one pass. Syntax errors and exceeded
// limits stop it (err); structural problems found inside valid JSON, such
// as duplicate keys, are recorded in invalid and scanning goes on, so that
// a syntax error later in the frame still wins.
type scanner struct {
	data     []byte
	pos      int
	maxDepth int
	dec      *Decoder
	keys     []keySpan    // keys of the objects being scanned, innermost last
	err      *DecodeError // fatal: the frame cannot be read
	invalid  string       // first structural problem, if any
}

// keysPool recycles the key stacks of scanners.
var keysPool = sync.Pool{New: func() any {
	s := make([]keySpan, 0, 2*maxLinearKeys)
	return &s
}}

// keySpan locates an object key (without its quotes) in data.
type keySpan struct {
	start, end int
	escaped    bool
}

// maxLinearKeys is the object size above which duplicate keys are found
// with a map rather than by comparing each key with every earlier one.
const maxLinearKeys = 16

func (d *scanner) syntax(format string, args ...any) bool {
	if d.err == nil {
		msg := "Parse error: " + fmt.Sprintf(format, args...)
		if d.pos < len(d.data) {
			msg += fmt.Sprintf(" at offset %d", d.pos)
		}
		d.err = &DecodeError{Err: NewError(CodeParseError, msg)}
	}
	return false
}

func (d *scanner) fatal(format string, args ...any) bool {
	if d.err == nil {
		d.err = &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: "+fmt.Sprintf(format, args...))}
	}
	return false
}

func (d *scanner) structural(format string, args ...any) {
	if d.invalid == "" {
		d.invalid = fmt.Sprintf(format, args...)
	}
}

func (d *scanner) skipWS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value scans one JSON value; depth is the nesting of its container.
func (d *scanner) value(depth int) bool {
	if d.pos >= len(d.data) {
		return d.syntax("unexpected end of input")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		_, ok := d.str()
		return ok
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return d.syntax("unexpected character %q", d.data[d.pos])
}

func (d *scanner) literal(lit string) bool {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.syntax("invalid literal")
	}
	d.pos += len(lit)
	return true
}

func (d *scanner) number() bool {
	b, i := d.data, d.pos
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return d.syntax("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.pos = i
			return d.syntax("invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			d.pos = i
			return d.syntax("invalid number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.pos = i
	return true
}

// strPlain marks the bytes that may appear in a string as themselves
// without further checks: printable ASCII other than '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// str scans a string starting at the opening quote and returns the span of
// its contents.
func (d *scanner) str() (keySpan, bool) {
	b := d.data
	i := d.pos + 1
	sp := keySpan{start: i}
	for {
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			d.pos = i
			return sp, d.syntax("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			sp.end = i
			d.pos = i + 1
			return sp, true
		case c == '\\':
			sp.escaped = true
			if i+1 >= len(b) {
				d.pos = i
				return sp, d.syntax("unterminated string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					d.pos = i
					return sp, d.syntax("invalid \\u escape")
				}
				i += 6
			default:
				d.pos = i
				return sp, d.syntax("invalid escape")
			}
		case c < 0x20:
			d.pos = i
			return sp, d.syntax("control character in string")
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				d.pos = i
				return sp, d.syntax("invalid UTF-8")
			}
			i += size
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (d *scanner) array(depth int) bool {
	if depth > d.maxDepth {
		return d.fatal("nesting deeper than %d levels", d.maxDepth)
	}
	d.pos++
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return true
	}
	for {
		d.skipWS()
		if !d.value(depth) {
			return false
		}
		d.skipWS()
		if d.pos >= len(d.data) {
			return d.syntax("unterminated array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return true
		default:
			return d.syntax("expected ',' or ']'")
		}
	}
}

// objIter walks the members of an object being scanned.
type objIter struct {
	depth int
	base  int // index in scanner.keys of the object's first key
	set   map[string]struct{}
	done  bool
}

// objStart begins scanning the object at d.pos ('{').
func (d *scanner) objStart(depth int) (objIter, bool) {
	it := objIter{depth: depth, base: len(d.keys)}
	if depth > d.maxDepth {
		return it, d.fatal("nesting deeper than %d levels", d.maxDepth)
	}
	d.pos++
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		it.done = true
	}
	return it, true
}

// objNext scans the next member: its key and the span of its value. It
// returns ok false on a syntax error, and more false after the last member.
func (d *scanner) objNext(it *objIter) (k keySpan, vs, ve int, more, ok bool) {
	if it.done {
		return k, 0, 0, false, true
	}
	d.skipWS()
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return k, 0, 0, false, d.syntax("expected a string key")
	}
	if k, ok = d.str(); !ok {
		return k, 0, 0, false, false
	}
	it.set = d.checkDuplicate(it.base, k, it.set)
	d.skipWS()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return k, 0, 0, false, d.syntax("expected ':'")
	}
	d.pos++
	d.skipWS()
	vs = d.pos
	if !d.value(it.depth) {
		return k, 0, 0, false, false
	}
	ve = d.pos
	d.skipWS()
	if d.pos >= len(d.data) {
		return k, 0, 0, false, d.syntax("unterminated object")
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
	case '}':
		d.pos++
		it.done = true
		d.keys = d.keys[:it.base]
	default:
		return k, 0, 0, false, d.syntax("expected ',' or '}'")
	}
	return k, vs, ve, true, true
}

func (d *scanner) object(depth int) bool {
	it, ok := d.objStart(depth)
	if !ok {
		return false
	}
	for {
		_, _, _, more, ok := d.objNext(&it)
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// checkDuplicate records k as a key of the object whose keys start at base
// and notes a structural error if it repeats an earlier key.
func (d *scanner) checkDuplicate(base int, k keySpan, set map[string]struct{}) map[string]struct{} {
	if set != nil {
		s := d.keyString(k)
		if _, dup := set[s]; dup {
			d.structural("duplicate key %q", s)
		}
		set[s] = struct{}{}
		return set
	}
	for _, prev := range d.keys[base:] {
		if d.sameKey(prev, k) {
			d.structural("duplicate key %q", d.keyString(k))
			break
		}
	}
	d.keys = append(d.keys, k)
	if len(d.keys)-base > maxLinearKeys {
		set = make(map[string]struct{}, 2*maxLinearKeys)
		for _, prev := range d.keys[base:] {
			set[d.keyString(prev)] = struct{}{}
		}
	}
	return set
}

func (d *scanner) sameKey(a, b keySpan) bool {
	if !a.escaped && !b.escaped {
		return string(d.data[a.start:a.end]) == string(d.data[b.start:b.end])
	}
	return d.keyString(a) == d.keyString(b)
}

func (d *scanner) keyString(k keySpan) string {
	if !k.escaped {
		return string(d.data[k.start:k.end])
	}
	s, _ := unquote(d.data[k.start-1 : k.end+1])
	return s
}

// keyIs reports whether key k equals name.
func (d *scanner) keyIs(k keySpan, name string) bool {
	if !k.escaped {
		return string(d.data[k.start:k.end]) == name
	}
	return d.keyString(k) == name
}
