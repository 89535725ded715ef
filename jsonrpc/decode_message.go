package jsonrpc

import (
	"encoding/json"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
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

// The index in a member table of each member a message may have.
const (
	idxJSONRPC = iota
	idxMethod
	idxParams
	idxID
	idxResult
	idxError
	numMembers
)

// memberIndex returns the index of the message member named name, or -1.
func memberIndex(name []byte) int {
	switch string(name) {
	case "jsonrpc":
		return idxJSONRPC
	case "method":
		return idxMethod
	case "params":
		return idxParams
	case "id":
		return idxID
	case "result":
		return idxResult
	case "error":
		return idxError
	}
	return -1
}

type span struct{ start, end int }

// message scans one message object at d.Pos. It returns the message, or a
// DecodeError describing why the (syntactically valid) object is not a
// message; on a syntax error both are nil and the scanner has failed.
func (d *decoder) message(depth int) (Message, *DecodeError) {
	var (
		seen    int
		vals    [numMembers]span
		unknown string
	)
	// A duplicate key inside this message is this message's error; one
	// elsewhere in a batch is not.
	outer, _ := d.Duplicate()
	d.SetDuplicate(jsonscan.Key{})
	it, ok := d.ObjectStart(depth)
	for ok {
		k, vs, ve, more, mok := d.ObjectNext(&it)
		if !mok {
			ok = false
			break
		}
		if !more {
			break
		}
		var i int
		if k.Escaped {
			i = memberIndex([]byte(d.KeyString(k)))
		} else {
			i = memberIndex(d.Data[k.Start:k.End])
		}
		switch {
		case i >= 0:
			if bit := 1 << i; seen&bit == 0 {
				seen |= bit
				vals[i] = span{vs, ve}
			}
		case unknown == "":
			unknown = d.KeyString(k)
		}
	}
	dup, hasDup := d.Duplicate()
	d.SetDuplicate(outer)
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
		v, err := parseID(d.Data[vals[idxID].start:vals[idxID].end])
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
	case hasDup:
		return fail("duplicate key %q", d.KeyString(dup))
	case unknown != "":
		return fail("unknown member %q", unknown)
	case seen&memJSONRPC == 0:
		return fail(`missing "jsonrpc":"2.0"`)
	}
	if v := d.Data[vals[idxJSONRPC].start:vals[idxJSONRPC].end]; string(v) != `"2.0"` {
		if s, ok := jsonscan.UnquoteStrict(v); !ok || s != "2.0" {
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
		m := d.Data[vals[idxMethod].start:vals[idxMethod].end]
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
			p := d.Data[vals[idxParams].start:vals[idxParams].end]
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
		resp.Result = json.RawMessage(d.Data[vals[idxResult].start:vals[idxResult].end])
		return resp, nil
	}
	e, msg := parseErrorObject(d.Data[vals[idxError].start:vals[idxError].end])
	if e == nil {
		return fail("%s", msg)
	}
	resp.Error = e
	return resp, nil
}

// method returns the method name held in the JSON string m, without
// allocating when it is one of the decoder's known names.
func (d *decoder) method(m []byte) string {
	inner := m[1 : len(m)-1]
	if d.dec != nil && d.dec.names != nil {
		if s, ok := d.dec.names[string(inner)]; ok {
			return s
		}
	}
	s, _ := jsonscan.UnquoteStrict(m)
	return s
}

// parseErrorObject reads a JSON-RPC error object from already validated
// JSON. It returns nil and a reason when the object is malformed.
func parseErrorObject(b []byte) (*Error, string) {
	if b[0] != '{' {
		return nil, `"error" must be an object`
	}
	var (
		e               Error
		hasCode, hasMsg bool
		bad             string
	)
	jsonscan.EachMember(b, 0, func(key []byte, escaped bool, v []byte) bool {
		switch {
		case jsonscan.KeyEqual(key, escaped, "code"):
			hasCode = true
			if !jsonscan.IsInteger(v) {
				bad = `"error.code" must be an integer`
				break
			}
			n, ok := jsonscan.ParseInt(v)
			if !ok {
				bad = `"error.code" is out of range`
				break
			}
			e.Code = Code(n)
		case jsonscan.KeyEqual(key, escaped, "message"):
			hasMsg = true
			s, ok := jsonscan.UnquoteStrict(v)
			if !ok {
				bad = `"error.message" must be a string`
				break
			}
			e.Message = s
		case jsonscan.KeyEqual(key, escaped, "data"):
			e.Data = json.RawMessage(v)
		default:
			if bad == "" {
				bad = "unknown member " + quoteForMessage(jsonscan.KeyString(key, escaped)) + ` in "error"`
			}
		}
		return true
	})
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

// batch scans a JSON array of messages at d.Pos.
func (d *decoder) batch(max int) (Message, *DecodeError) {
	d.Pos++
	d.SkipSpace()
	if d.Pos < len(d.Data) && d.Data[d.Pos] == ']' {
		d.Pos++
		return nil, &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: empty batch")}
	}
	b := &Batch{}
	n := 0
	for {
		d.SkipSpace()
		if d.Pos >= len(d.Data) {
			d.Fail(jsonscan.UnterminatedArray)
			return nil, nil
		}
		n++
		if n > max {
			d.fatal = &DecodeError{Err: Errorf(CodeInvalidRequest, "Invalid Request: batch of more than %d messages", max)}
			return nil, nil
		}
		start := d.Pos
		var derr *DecodeError
		if d.Data[d.Pos] == '{' {
			var msg Message
			msg, derr = d.message(2)
			switch {
			case d.Failed():
				return nil, nil
			case derr == nil:
				b.Messages = append(b.Messages, msg)
			}
		} else {
			if !d.Value(1) {
				return nil, nil
			}
			derr = &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: a batch member must be an object")}
		}
		if derr != nil {
			derr.peekAt(d.Data[start:d.Pos])
			b.Invalid = append(b.Invalid, derr.Response())
			b.errs = append(b.errs, derr)
		}
		d.SkipSpace()
		if d.Pos >= len(d.Data) {
			d.Fail(jsonscan.UnterminatedArray)
			return nil, nil
		}
		switch d.Data[d.Pos] {
		case ',':
			d.Pos++
		case ']':
			d.Pos++
			return b, nil
		default:
			d.Fail(jsonscan.ArraySeparator)
			return nil, nil
		}
	}
}
