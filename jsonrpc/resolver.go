package jsonrpc

// A ResolvingStream is a Stream that may hand a response it reads to the
// engine at once, from the goroutine that read it, instead of returning
// it from Read: an HTTP client reads each response in the goroutine of
// its own request, and the call's caller then wakes up without a second
// hand-off through the goroutine that calls Read.
//
// NewConn calls SetResolver once, before it first calls Read, with the
// function to call; it may be called from any goroutine, at any time.
// The stream calls it for a response only when the engine has taken
// every message the stream read before that response on its way, that
// is, when each of them has been returned by Read and Read has been
// called again since: notifications that came before a response are
// then handled before its caller returns, as when everything goes
// through Read. Otherwise, and for everything else, Read returns the
// message as usual.
type ResolvingStream interface {
	Stream
	SetResolver(resolve func(*Response))
}

// startResolver lets s resolve calls directly.
func (c *Conn) startResolver(s ResolvingStream) {
	s.SetResolver(func(resp *Response) {
		c.framesIn.Add(1)
		c.Resolve(resp)
	})
}
