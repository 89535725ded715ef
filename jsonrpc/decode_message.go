package jsonrpc

import (
	"encoding/json"
)

// The members a message object may have, as bits.
const (
	memJSONRPC = 1 << iota
	memMethod
	memParams
	memID
	memResult
	memError
)

var memberNames = [...]string{"jsonrpc", "method", "params", "id", "result", "error"}

type span struct{ start, end int }

// message scans one message object at d.pos. It returns the message, or a
// DecodeError describing why the (syntactically valid) object is not a
// message; on a syntax error both are nil and d.err is set.
func (d *scanner) message(depth int) (Message, *DecodeError) {
	var (
		seen    int
		vals    [len(memberNames)]span
		unknown string
	)
	outer := d.invalid
	d.invalid = ""
	it, ok := d.objStart(depth)
	for ok {
		k, vs, ve, more, mok := d.objNext(&it)
		if !mok {
			ok = false
			break
		}
		if !more {
			break
		}
		known := false
		for i, name := range memberNames {
			if d.keyIs(k, name) {
				known = true
				if bit := 1 << i; seen&bit == 0 {
					seen |= bit
					vals[i] = span{vs, ve}
				}
				break
			}
		}
		if !known && unknown == "" {
			unknown = d.keyString(k)
		}
	}
	inner := d.invalid
	d.invalid = outer
	if !ok {
		return nil, nil
	}

	// Read the id first, so that errors about a request can echo it.
	var (
		id      ID
		idErr   bool
		hasNull bool
	)
	if seen&memID != 0 {
		v, err := parseID(d.data[vals[3].start:vals[3].end])
		switch {
		case err != nil:
			idErr = true
		case !v.IsValid():
			hasNull = true
		}
		id = v
	}
	isRequest := seen&memMethod != 0
	fail := func(format string, args ...any) (Message, *DecodeError) {
		e := &DecodeError{Err: Errorf(CodeInvalidRequest, "Invalid Request: "+format, args...)}
		if isRequest && !idErr {
			e.ID = id
		}
		return nil, e
	}
	switch {
	case inner != "":
		return fail("%s", inner)
	case unknown != "":
		return fail("unknown member %q", unknown)
	case seen&memJSONRPC == 0:
		return fail(`missing "jsonrpc":"2.0"`)
	}
	if v := d.data[vals[0].start:vals[0].end]; string(v) != `"2.0"` {
		if s, ok := unquote(v); !ok || s != "2.0" {
			return fail(`"jsonrpc" must be "2.0"`)
		}
	}
	if idErr {
		return fail(`"id" must be a string or an integer`)
	}

	if isRequest {
		if seen&(memResult|memError) != 0 {
			return fail("a request cannot carry a result or an error")
		}
		m := d.data[vals[1].start:vals[1].end]
		if len(m) == 0 || m[0] != '"' {
			return fail(`"method" must be a string`)
		}
		if len(m) == 2 {
			return fail(`"method" must not be empty`)
		}
		if hasNull {
			return fail(`"id" must not be null`)
		}
		req := &Request{ID: id, Method: d.method(m)}
		if seen&memParams != 0 {
			p := d.data[vals[2].start:vals[2].end]
			if p[0] != '{' && p[0] != '[' {
				return fail(`"params" must be an object or an array`)
			}
			req.Params = json.RawMessage(p)
		}
		return req, nil
	}

	switch {
	case seen&(memResult|memError) == 0:
		return fail(`a message needs "method" (a request) or "result" or "error" (a response)`)
	case seen&memResult != 0 && seen&memError != 0:
		return fail("a response cannot carry both a result and an error")
	case seen&memParams != 0:
		return fail(`a response cannot carry "params"`)
	case seen&memID == 0 && seen&memResult != 0:
		// An error without an id is tolerated: MCP's schema allows it
		// where JSON-RPC writes null.
		return fail(`a result needs an "id"`)
	}
	resp := &Response{ID: id}
	if seen&memResult != 0 {
		if hasNull {
			return fail(`a result needs a non-null "id"`)
		}
		resp.Result = json.RawMessage(d.data[vals[4].start:vals[4].end])
		return resp, nil
	}
	e, msg := parseErrorObject(d.data[vals[5].start:vals[5].end])
	if e == nil {
		return fail("%s", msg)
	}
	resp.Error = e
	return resp, nil
}

// method returns the method name held in the JSON string m, without
// allocating when it is one of the decoder's known names.
func (d *scanner) method(m []byte) string {
	inner := m[1 : len(m)-1]
	if d.dec != nil && d.dec.names != nil {
		if s, ok := d.dec.names[string(inner)]; ok {
			return s
		}
	}
	s, _ := unquote(m)
	return s
}

// parseErrorObject reads a JSON-RPC error object from already validated
// JSON. It returns nil and a reason when the object is malformed.
func parseErrorObject(b []byte) (*Error, string) {
	if b[0] != '{' {
		return nil, `"error" must be an object`
	}
	d := scanner{data: b, maxDepth: int(^uint(0) >> 1)}
	var (
		e               Error
		hasCode, hasMsg bool
		bad             string
	)
	it, _ := d.objStart(1)
	for {
		k, vs, ve, more, _ := d.objNext(&it)
		if !more {
			break
		}
		v := b[vs:ve]
		switch {
		case d.keyIs(k, "code"):
			hasCode = true
			if !isInteger(v) {
				bad = `"error.code" must be an integer`
				continue
			}
			n, ok := parseInt64(v)
			if !ok {
				bad = `"error.code" is out of range`
				continue
			}
			e.Code = Code(n)
		case d.keyIs(k, "message"):
			hasMsg = true
			s, ok := unquote(v)
			if !ok {
				bad = `"error.message" must be a string`
				continue
			}
			e.Message = s
		case d.keyIs(k, "data"):
			e.Data = json.RawMessage(v)
		default:
			if bad == "" {
				bad = "unknown member " + quoteForMessage(d.keyString(k)) + ` in "error"`
			}
		}
	}
	switch {
	case bad != "":
		return nil, bad
	case !hasCode:
		return nil, `"error" needs a "code"`
	case !hasMsg:
		return nil, `"error" needs a "message"`
	}
	return &e, ""
}

// batch scans a JSON array of messages at d.pos.
func (d *scanner) batch(max int) (Message, *DecodeError) {
	d.pos++
	d.skipWS()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: empty batch")}
	}
	b := &Batch{}
	n := 0
	for {
		d.skipWS()
		if d.pos >= len(d.data) {
			d.syntax("unterminated array")
			return nil, nil
		}
		n++
		if n > max {
			d.fatal("batch of more than %d messages", max)
			return nil, nil
		}
		if d.data[d.pos] == '{' {
			msg, derr := d.message(2)
			switch {
			case d.err != nil:
				return nil, nil
			case derr != nil:
				b.Invalid = append(b.Invalid, derr.Response())
			default:
				b.Messages = append(b.Messages, msg)
			}
		} else {
			if !d.value(1) {
				return nil, nil
			}
			b.Invalid = append(b.Invalid, &Response{Error: NewError(CodeInvalidRequest, "Invalid Request: a batch member must be an object")})
		}
		d.skipWS()
		if d.pos >= len(d.data) {
			d.syntax("unterminated array")
			return nil, nil
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return b, nil
		default:
			d.syntax("expected ',' or ']'")
			return nil, nil
		}
	}
}
