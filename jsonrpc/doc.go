// Package jsonrpc implements JSON-RPC 2.0 (https://www.jsonrpc.org/specification)
// completely: requests, notifications, responses, error objects, batches,
// and a symmetric connection on which either side may call the other.
//
// It is the engine under mcpwire's MCP server and client, but it knows
// nothing of MCP and can serve any JSON-RPC 2.0 protocol.
//
// # Messages
//
// A Message is a *Request, a *Response or a *Batch; no other type
// implements it. A Request with the zero ID is a notification. An ID is a
// string or an integer of any size (StringID, Int64ID); IDs are comparable
// values and round-trip exactly.
//
// Decode turns one frame into a Message, strictly and within bounds:
//
//   - member names are case-sensitive, and unknown or duplicate members
//     are rejected; duplicate keys are rejected at every depth;
//   - "jsonrpc" must be "2.0"; "method" a string; "params" an object or an
//     array; "id" a string or an integer (null is refused in requests);
//   - text must be valid JSON in valid UTF-8;
//   - the frame size, nesting depth and batch size are limited (Limits).
//
// A frame that breaks a rule yields a *DecodeError carrying the code the
// specification assigns (CodeParseError or CodeInvalidRequest), the start
// of the frame, and its id when it can still be read: from a frame cut
// short, nested too deep or too large, the id is read leniently, without
// recursion. One bad message never ends a connection; a Conn
//
//   - answers a request (or a frame it cannot tell) with the error, by its
//     id when it could be read, so that the peer's call fails at once, as
//     JSON-RPC asks of a server; a client (Options.Client) answers none,
//     since its peer, a server, sends no calls that are not valid messages,
//     and an answer could start a ping-pong of errors with a program that
//     replies to every line;
//   - fails at once the call that a broken response was meant for (its id
//     could be read, or it is shaped as a response and only one call
//     waits), with a *FrameError that names the frame: its position on
//     the connection, its start, quoted, and the rule it broke;
//   - otherwise keeps the frame with the calls that are waiting: a peer
//     that writes a stray line and then answers is tolerated, as other
//     clients tolerate it, and a call that ends unanswered (its deadline,
//     the connection closing) returns a *FrameError naming the frame,
//     which wraps the reason it ended.
//
// Encode writes a message on one line, as newline-delimited transports
// need.
//
// # Connections
//
// NewConn runs a connection over a Stream (what a transport provides).
// Its Handler answers incoming requests by returning (result, error); the
// engine writes the response, so a handler cannot forget to reply:
//
//	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
//		switch req.Method {
//		case "add":
//			var args [2]int
//			if err := json.Unmarshal(req.Params, &args); err != nil {
//				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "want [a, b]: %v", err)
//			}
//			return args[0] + args[1], nil
//		}
//		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "")
//	})
//	conn := jsonrpc.NewConn(stream, &jsonrpc.Options{Handler: h})
//	defer conn.Close()
//	var sum int
//	err := conn.Call(ctx, "add", []int{1, 2}, &sum) // the peer may call us, too
//
// Returning an *Error chooses the error code; any other error is sent as
// CodeInternalError with the error's text (see ErrorCode). Code 0 is never
// sent. A handler that panics, or whose result panics when it is encoded,
// fails its own request with CodeInternalError and nothing else.
//
// NewDirectConn is the same engine for transports that receive each
// message separately, such as HTTP: the transport hands requests to Serve
// and responses to Resolve, and the engine keeps track of cancellation,
// concurrency and outgoing calls.
//
// # Concurrency
//
// The engine enforces one contract, in one place:
//
//   - Notifications are handled one at a time, in arrival order, and a
//     message that arrives after a notification is not handled before that
//     notification's handler has returned.
//   - Calls run concurrently, up to Options.MaxConcurrency at once; further
//     calls wait in the ordered queue, at most Options.MaxQueue of them, and
//     calls beyond that are refused at once with CodeOverloaded.
//   - Lifecycle messages (Options.Barrier) are barriers: a barrier starts
//     when every call before it has finished, and nothing after it starts
//     until it has finished.
//   - Out-of-band notifications, such as cancellation and progress, go to
//     the Preempter on the read path and never wait behind the queue.
//     CancelIncoming drops a queued call or cancels a running one; a
//     cancelled call gets no response.
//   - The reader never waits for a handler. Responses are resolved on the
//     read path too, so a handler that waits for the peer (a notification
//     handler that calls it, a call that runs until it is cancelled)
//     always gets what it waits for, however many messages are queued.
//     Notifications wait in the queue, at most
//     Options.MaxQueuedNotifications of them. A notification cannot be
//     refused, and reading must go on, so a peer that gets further ahead
//     of the handlers than that ends the connection: the error
//     (ErrTooManyNotifications, naming the limit) is logged, returned by
//     Wait and given to the calls outstanding. No notification is ever
//     dropped silently.
//   - A call returns once the notifications received before its response
//     have been handled (the log messages of the call, for instance),
//     except those that could be waiting for the caller itself: the
//     notification whose handler makes the call and those after it, and,
//     for a call made by a call's handler, notifications queued behind a
//     call or barrier that waits for capacity.
//   - Writes are serialized: the engine never calls Writer.Write
//     concurrently, unless the Writer is a ConcurrentWriter that allows
//     it (an HTTP client, whose messages travel in requests of their own).
//   - Every goroutine has an owner: the connection starts the reader, the
//     dispatcher (only while there is queued work, so an idle connection
//     costs no goroutine for it) and the workers that run calls, and Close
//     waits for all of them. A worker that has finished a call waits up to
//     a second for the next one, since a new goroutine would have to grow
//     its stack again; an idle connection keeps none longer than that.
//   - Over a PushStream (the stdio and subprocess transports are), the
//     stream's own goroutine delivers each message, and a call that can
//     start at once runs right there, as a hand-written loop would run it:
//     no goroutine hand-off, which on a loaded machine is most of a small
//     call's latency. If the call lasts longer than 100µs or calls the
//     peer, reading moves to a new goroutine, so cancellations, responses
//     and further calls are still read and run concurrently.
//   - Close drains: it stops taking new requests, lets running handlers
//     finish and send their responses for up to Options.DrainTimeout, then
//     cancels what remains. The end of the input (the peer closing its
//     side) drains the same way.
//
// # Batches
//
// A batch is answered with one array holding a response for each call in
// it, in any order, once its last call is done, and nothing at all when
// it holds only notifications. A call of a batch that the peer cancelled
// is left out; whatever becomes of the others (answered, refused, failed
// by a panic, dropped by a drain), each has its response in the array;
// an empty batch, or a frame that is not JSON, is answered with a single
// error object, as the specification demands. A member that is not a
// valid message is taken as a frame that is not (see FrameError): the
// call it was meant to answer fails, or the calls waiting name it if they
// end unanswered. Protocols that forbid batches (MCP after revision
// 2025-03-26) set Options.AcceptBatch.
package jsonrpc
