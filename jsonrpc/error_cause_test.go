package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// errCauseSentinel stands for a typed error of a transport (an auth
// failure, say).
var errCauseSentinel = errors.New("needs login")

func TestErrorWithCauseCopies(t *testing.T) {
	orig := NewError(CodeConnectionClosed, "streamable: ping (id 1): boom").WithData(map[string]int{"httpStatus": 500})
	e := orig.WithCause(errCauseSentinel)
	if e == orig {
		t.Fatal("WithCause returned its receiver, want a copy")
	}
	if orig.Unwrap() != nil {
		t.Errorf("WithCause changed its receiver: cause %v", orig.Unwrap())
	}
	if e.Code != orig.Code || e.Message != orig.Message || string(e.Data) != string(orig.Data) {
		t.Errorf("WithCause changed the error: %+v, want %+v", e, orig)
	}
	if e.Error() != orig.Error() {
		t.Errorf("Error() = %q, want %q: the cause stays out of the message", e.Error(), orig.Error())
	}
	if got := e.Unwrap(); got != errCauseSentinel {
		t.Errorf("Unwrap() = %v, want the cause", got)
	}
	if got := e.WithData("x").Unwrap(); got != errCauseSentinel {
		t.Errorf("WithData dropped the cause: Unwrap() = %v", got)
	}
	if got := e.WithCause(nil).Unwrap(); got != nil {
		t.Errorf("WithCause(nil).Unwrap() = %v, want nil", got)
	}
}

func TestErrorCauseErrorsIsAs(t *testing.T) {
	urlErr := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	e := NewError(CodeConnectionClosed, "network down").WithCause(urlErr)
	var err error = e

	// The code comparison still works, with and without a cause.
	if !errors.Is(err, NewError(CodeConnectionClosed, "")) {
		t.Error("errors.Is by code failed with a cause attached")
	}
	if errors.Is(err, NewError(CodeInternalError, "")) {
		t.Error("errors.Is matched another code")
	}
	// errors.As walks into the cause.
	var ue *url.Error
	if !errors.As(err, &ue) || ue != urlErr {
		t.Errorf("errors.As(*url.Error) = %v, want the cause", ue)
	}
	var ne net.Error
	if !errors.As(err, &ne) {
		t.Error("errors.As(net.Error) failed")
	}
	// The *Error itself is still found first.
	var je *Error
	if !errors.As(err, &je) || je != e {
		t.Errorf("errors.As(*Error) = %v, want the error itself", je)
	}

	dl := Errorf(CodeRequestTimeout, "timed out").WithCause(context.DeadlineExceeded)
	if !errors.Is(dl, context.DeadlineExceeded) {
		t.Error("errors.Is(context.DeadlineExceeded) failed")
	}
	if !errors.Is(NewError(CodeInternalError, "x").WithCause(errCauseSentinel), errCauseSentinel) {
		t.Error("errors.Is(sentinel) failed")
	}
	// Without a cause, nothing changes.
	if errors.Is(NewError(CodeRequestTimeout, ""), context.DeadlineExceeded) {
		t.Error("an Error without a cause matched context.DeadlineExceeded")
	}
}

func TestErrorCodeIgnoresCause(t *testing.T) {
	// The code of the *Error wins over what its cause would map to.
	e := NewError(CodeConnectionClosed, "x").WithCause(context.DeadlineExceeded)
	if got := ErrorCode(e); got != CodeConnectionClosed {
		t.Errorf("ErrorCode = %v, want %v", got, CodeConnectionClosed)
	}
	if got := toWireError(e); got.Code != CodeConnectionClosed || got.Message != "x" {
		t.Errorf("toWireError = %+v", got)
	}
}

func TestErrorCauseNotEncoded(t *testing.T) {
	plain := &Response{ID: Int64ID(7), Error: NewError(CodeInternalError, "boom").WithData(map[string]int{"httpStatus": 503})}
	caused := &Response{ID: Int64ID(7), Error: plain.Error.WithCause(errors.New("SECRET cause text"))}
	want, err := Encode(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []Encoder{{}, {OmitNullID: true}} {
		got, err := enc.Append(nil, caused)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("encoded %s, want %s", got, want)
		}
	}
	// encoding/json (an *Error inside a result, say) leaves it out too.
	b, err := json.Marshal(caused.Error)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SECRET") {
		t.Errorf("json.Marshal = %s, want no cause", b)
	}
}

// respondStream is a message-level Stream whose peer answers every call
// with the error that reply returns, as a transport that fails a call
// locally does.
type respondStream struct {
	reply  func(*Request) *Error
	in     chan Message
	once   sync.Once
	closed chan struct{}
}

func newRespondStream(reply func(*Request) *Error) *respondStream {
	return &respondStream{reply: reply, in: make(chan Message, 16), closed: make(chan struct{})}
}

func (s *respondStream) Read(ctx context.Context) (Message, error) {
	select {
	case m := <-s.in:
		return m, nil
	case <-s.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *respondStream) Write(ctx context.Context, m Message) error {
	if req, ok := m.(*Request); ok && req.IsCall() {
		s.in <- &Response{ID: req.ID, Error: s.reply(req)}
	}
	return nil
}

func (s *respondStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func TestConnHandsOverErrorCause(t *testing.T) {
	var (
		mu   sync.Mutex
		sent []*Error
	)
	s := newRespondStream(func(req *Request) *Error {
		e := NewError(CodeConnectionClosed, "transport failed").WithCause(errCauseSentinel)
		mu.Lock()
		sent = append(sent, e)
		mu.Unlock()
		return e
	})
	c := NewConn(s, nil)
	defer c.Close()
	ctx := context.Background()
	last := func() *Error {
		mu.Lock()
		defer mu.Unlock()
		return sent[len(sent)-1]
	}
	check := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, errCauseSentinel) {
			t.Errorf("%s: errors.Is(err, sentinel) = false for %v", name, err)
		}
		if err != error(last()) {
			t.Errorf("%s: returned %p, want the *Error of the response (%p)", name, err, last())
		}
	}

	check("Call", c.Call(ctx, "m", nil, nil))
	_, err := c.CallRaw(ctx, "m", nil)
	check("CallRaw", err)
	p, err := c.Start(ctx, "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Wait(ctx)
	check("Pending.Wait", err)
}
