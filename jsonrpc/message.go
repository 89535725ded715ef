package jsonrpc

import (
	"encoding/json"
)

// A Message is one JSON-RPC message: a *Request (a call, or a notification
// when it has no ID), a *Response, or a *Batch of them. The set is closed:
// no other type implements Message.
type Message interface {
	isMessage()
}

// A Request is a call (it has an ID and expects a Response) or a
// notification (its ID is the zero ID and nothing answers it).
type Request struct {
	// ID is the zero ID for a notification.
	ID ID
	// Method names the procedure. Names beginning with "rpc." are reserved.
	Method string
	// Params is the raw JSON object or array of parameters, or nil when
	// the request carries none.
	Params json.RawMessage

	waits bool // see CallerWaits
}

// IsCall reports whether r expects a response.
func (r *Request) IsCall() bool { return r.ID.IsValid() }

// CallerWaits reports whether r is a call whose caller waits for the
// response on the goroutine that writes it: Conn.Call and Conn.CallRaw
// do (without Options.Outgoing), Conn.Start does not. A transport whose
// Write would otherwise hand the exchange to another goroutine (an HTTP
// POST, whose answer comes on the request's own response) may then run
// it to its end before Write returns, sparing a hand-off between
// goroutines each way; it still returns at once when the context ends
// after the request is sent, the response then being abandoned.
func (r *Request) CallerWaits() bool { return r.waits }

// A Response answers a call. Exactly one of Result and Error is set.
type Response struct {
	// ID is the ID of the call answered; the zero ID (written as null)
	// only when the call's ID could not be read.
	ID ID
	// Result is the raw JSON result on success.
	Result json.RawMessage
	// Error is set on failure.
	Error *Error
}

// A Batch is several messages sent as one JSON array (JSON-RPC §6).
// Whether a batch is allowed at all is for the protocol above to decide
// (MCP allows it only in revision 2025-03-26); see Options.AcceptBatch.
type Batch struct {
	// Messages holds the members that are valid messages, in order.
	Messages []Message
	// Invalid holds one error response, ready to send back, for each
	// member that was not a valid message.
	Invalid []*Response

	// errs holds, when the decoder made the batch, the DecodeError of
	// each member of Invalid, in order: the rule the member broke, the id
	// it was meant to answer, and the start of the whole batch (Frame,
	// Size), for a Conn to name it as it names any invalid frame.
	errs []*DecodeError
}

func (*Request) isMessage()  {}
func (*Response) isMessage() {}
func (*Batch) isMessage()    {}

// NewCall returns a call with the given id, method and params. Params is
// marshaled to JSON unless it is already a json.RawMessage; nil means no
// params.
func NewCall(id ID, method string, params any) (*Request, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return &Request{ID: id, Method: method, Params: raw}, nil
}

// NewNotification returns a notification with the given method and params.
func NewNotification(method string, params any) (*Request, error) {
	raw, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return &Request{Method: method, Params: raw}, nil
}

// NewResponse returns the response to id carrying result, or err when err
// is not nil. Result is marshaled unless it is a json.RawMessage; a nil
// result becomes JSON null. An error that is not an *Error is reported as
// CodeInternalError with its text as the message.
func NewResponse(id ID, result any, err error) (*Response, error) {
	if err != nil {
		return &Response{ID: id, Error: toWireError(err)}, nil
	}
	raw, merr := marshalResult(result)
	if merr != nil {
		return nil, merr
	}
	return &Response{ID: id, Result: raw}, nil
}

// An Appender encodes itself as JSON by appending to a buffer. Params and
// results that implement it are encoded without encoding/json, which
// saves the copies and checks json.Marshal makes around MarshalJSON.
type Appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

func marshalParams(params any) (json.RawMessage, error) {
	switch p := params.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return p, nil
	case Appender:
		return p.AppendJSON(nil)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

func marshalResult(result any) (json.RawMessage, error) {
	switch r := result.(type) {
	case nil:
		return json.RawMessage("null"), nil
	case json.RawMessage:
		if r == nil {
			return json.RawMessage("null"), nil
		}
		return r, nil
	case Appender:
		return r.AppendJSON(nil)
	}
	return json.Marshal(result)
}
