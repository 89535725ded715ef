package streamable

import (
	"context"

	"github.com/mcpwire/mcpwire/store"
)

// An EventStore keeps the SSE events of legacy sessions so that a client
// can resume a stream it lost, or that the server closed, with GET and
// Last-Event-ID (SEP-1699). The Handler uses one when
// HandlerOptions.EventStore is set; NewMemoryEventStore is the in-process
// implementation. A store shared by several server instances lets a
// client resume on any of them.
//
// Streams are named by the handler, with ids that contain no underscore:
// "0" is a session's standalone (GET) stream, "1", "2", ... its POST
// streams. Event ids are minted by the store and must have the form
// "<streamID>_<suffix>", unique within the session, so that the handler
// can tell from a Last-Event-ID which stream to resume.
//
// Methods may be called concurrently; for one stream, Append is never
// called concurrently with itself or with Replay.
type EventStore interface {
	// Append keeps data (one JSON-RPC message, or nothing for a priming
	// event) as the next event of the stream and returns the event's id.
	// The store must copy data if it keeps it.
	Append(ctx context.Context, sessionID, streamID string, data []byte) (eventID string, err error)
	// Replay calls send, in order, with each event of lastEventID's stream
	// that came after lastEventID, and stops at the first error of send.
	// It returns ErrEventNotFound, without calling send, when the store
	// does not know lastEventID in that session (never issued, or
	// evicted).
	Replay(ctx context.Context, sessionID, lastEventID string, send func(eventID string, data []byte) error) error
	// DeleteSession forgets every event of the session; the handler calls
	// it when the session ends.
	DeleteSession(ctx context.Context, sessionID string) error
}

// ErrEventNotFound is returned by EventStore.Replay for an event id that
// the store does not know. It is store.ErrEventNotFound, which the
// shared stores' Events return (HandlerOptions.Store): the handler
// answers a Last-Event-ID either does not know with 400, with one
// instance as with many.
var ErrEventNotFound = store.ErrEventNotFound
