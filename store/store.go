package store

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// A Store is everything the instances of one MCP server share. Give the
// same Store to the server (server.Options.Store) and to its HTTP
// handler (streamable.HandlerOptions.Store, which defaults to the
// server's). NewMemory shares state between servers of one process;
// package store/redis between processes.
//
// Every method may be called concurrently. A method that cannot reach
// the shared state returns an error wrapping ErrUnavailable, which the
// server and the handler turn into clear refusals (HTTP 503) rather than
// wrong answers.
type Store interface {
	// Sessions keeps the records of legacy (2025-era) sessions.
	Sessions() Sessions
	// Events keeps the SSE events of legacy sessions' streams.
	Events() Events
	// Bus carries messages between instances.
	Bus() Bus
	// Tasks keeps the state of tasks.
	Tasks() Tasks
	// Keys keeps the keys that seal request state (multi round-trip
	// requests of 2026-07-28).
	Keys() KeyRing
	// Instances tells which instances are alive.
	Instances() Instances
	// NewInstance returns a number, in [1, MaxInstance], that no other
	// live instance of the server holds. The server draws one when it
	// first needs it and subscribes to its Bus topic InstanceTopic(n):
	// it names the instance in what must come back to it (the ids of its
	// requests to clients, the tasks it runs).
	NewInstance(ctx context.Context) (int64, error)
}

// MaxInstance bounds the numbers that NewInstance returns: an instance
// number shifted left 32 bits, plus a sequence number, is still an
// integer that JavaScript clients read exactly (below 2^53).
const MaxInstance = 1<<20 - 1

// InstanceTopic is the Bus topic of the instance numbered n: what other
// instances send it alone.
func InstanceTopic(n int64) string { return "i." + strconv.FormatInt(n, 10) }

// Errors of a Store.
var (
	// ErrNotFound: no such session (never created, deleted, or expired).
	ErrNotFound = errors.New("store: not found")
	// ErrExists: Create was given an id in use.
	ErrExists = errors.New("store: already exists")
	// ErrLimit: a bound of the store was reached (subscriptions of a
	// session).
	ErrLimit = errors.New("store: limit reached")
	// ErrUnavailable: the shared state cannot be reached (the network,
	// the server behind it, a timeout). The error wraps the cause.
	ErrUnavailable = errors.New("store: unavailable")
	// ErrEventNotFound: Events does not know an event id in that session
	// (never issued, or evicted).
	ErrEventNotFound = errors.New("store: event not found")
)

var errMetaSize = errors.New("store: a stream's meta is over MaxMeta bytes")

// A Session is the shared record of a legacy session: what the HTTP
// handler opened it with (its owner), what initialize negotiated, and
// what the client changed since (log level, subscriptions). Records
// passed in and returned are copies.
type Session struct {
	ID string
	// Owner is who opened the session (streamable.HandlerOptions.SessionOwner).
	Owner string
	// Initialized is set, with Version, ClientInfo and
	// ClientCapabilities, once initialize was answered.
	Initialized        bool
	Version            mcp.Version
	ClientInfo         mcp.Implementation
	ClientCapabilities mcp.ClientCapabilities
	// LogLevel is the level of logging/setLevel; "" for none.
	LogLevel mcp.LoggingLevel
	// Subscriptions are the resource URIs of resources/subscribe.
	Subscriptions []string
	// Delivered is the id of the last event of the session's own stream
	// (SessionStream) that was delivered on a standalone GET stream; a
	// new GET without Last-Event-ID starts after it.
	Delivered string
}

// A SessionUpdate changes a session; zero fields keep what it has.
type SessionUpdate struct {
	// Initialize records what initialize negotiated: Version,
	// ClientInfo and ClientCapabilities, and sets Initialized. The
	// session then counts among those Each lists.
	Initialize         bool
	Version            mcp.Version
	ClientInfo         mcp.Implementation
	ClientCapabilities mcp.ClientCapabilities
	// LogLevel, if not "", replaces the log level.
	LogLevel mcp.LoggingLevel
	// Subscribe adds a resource URI, unless the session holds
	// MaxSubscriptions already (ErrLimit); Unsubscribe removes one.
	Subscribe, Unsubscribe string
	MaxSubscriptions       int
	// Delivered, if not "", replaces Delivered.
	Delivered string
}

// Sessions keeps the records of legacy sessions, each for ttl after it
// was last created or loaded.
type Sessions interface {
	// Create records a new session; ErrExists if the id is in use.
	Create(ctx context.Context, s *Session, ttl time.Duration) error
	// Load returns the session id, or ErrNotFound, and keeps it for ttl
	// from now; with ttl <= 0 it reads the session without renewing it
	// (a caller that renewed it recently saves the store the work).
	Load(ctx context.Context, id string, ttl time.Duration) (*Session, error)
	// Update changes the session id; ErrNotFound if it does not exist.
	Update(ctx context.Context, id string, u *SessionUpdate) error
	// Delete forgets the session id (its record, not its events); a
	// missing session is not an error.
	Delete(ctx context.Context, id string) error
	// Each calls f with the id of every live initialized session, or,
	// when uri is not "", of every one subscribed to uri, until f returns
	// an error, which Each returns.
	Each(ctx context.Context, uri string, f func(id string) error) error
}

// SessionStream is the id of a session's own stream in Events: the
// messages of the server that relate to no request of the client (list
// changes, resource updates, requests of its own), which Streamable HTTP
// delivers on the standalone GET stream.
const SessionStream = "0"

// Events keeps the SSE events of the streams of legacy sessions, so that
// a client can resume a stream on any instance with Last-Event-ID, and
// an instance can carry on a stream another instance is writing.
//
// Streams are named by their writer, with ids that contain no underscore
// and are unique within the session; SessionStream is the session's own.
// Event ids are minted by the store, of the form "<streamID>_<suffix>",
// unique within the session and increasing within a stream.
//
// Events are bounded per session (the oldest go first) and forgotten
// with their session, or when the session has been quiet for the
// store's retention time.
type Events interface {
	// Append keeps data (one JSON-RPC message; nil for a priming event)
	// as the next event of the stream and returns its id.
	Append(ctx context.Context, session, stream string, data []byte) (id string, err error)
	// End marks the stream finished: nothing more will be appended to
	// it, and Follow returns after its last event.
	End(ctx context.Context, session, stream string) error
	// AppendEnd is Append then End, at once: data (one JSON-RPC message,
	// the answer that ends a call) is the stream's last event.
	AppendEnd(ctx context.Context, session, stream string, data []byte) (id string, err error)
	// Prime appends the priming event of a new stream (an event without
	// a message, as Append with nil data) and keeps meta with it: what
	// another instance needs to end the stream should its writer die
	// (the HTTP handler keeps the ids of the requests the stream
	// answers). Meta is small: at most MaxMeta bytes.
	Prime(ctx context.Context, session, stream string, meta []byte) (id string, err error)
	// Meta returns the meta of the stream's priming event, or
	// ErrEventNotFound when that event is not kept (never appended,
	// evicted, or the session's events deleted).
	Meta(ctx context.Context, session, stream string) ([]byte, error)
	// Replay calls send, in order, with each event of lastID's stream
	// that came after lastID, and stops at the first error of send. It
	// returns ErrEventNotFound, without calling send, when lastID is
	// unknown.
	Replay(ctx context.Context, session, lastID string, send func(id string, data []byte) error) error
	// Follow calls send, in order, with each event of the stream after
	// the event after ("" for the stream's first event kept), including
	// those appended later, until the stream ends (nil), ctx ends
	// (ctx.Err()) or send fails (its error). It returns ErrEventNotFound
	// when after is unknown, and when events it has not sent yet are
	// evicted meanwhile (a follow that fell more than the store's bound
	// of events behind, or whose session's events were deleted): it
	// never goes on past a gap.
	Follow(ctx context.Context, session, stream, after string, send func(id string, data []byte) error) error
	// DeleteSession forgets every event of the session.
	DeleteSession(ctx context.Context, session string) error
}

// MaxMeta bounds the meta of a stream (Events.Prime).
const MaxMeta = 4 << 10

// Instances tracks which instances of the server are alive, so that one
// can tell that the work of another is lost (the call whose stream it
// follows for a client): each instance beats under a name of its own,
// more often than the ttl it beats with, until it stops.
type Instances interface {
	// Beat marks the instance name alive for ttl from now.
	Beat(ctx context.Context, name string, ttl time.Duration) error
	// Alive reports whether the instance name beat less than its ttl
	// ago. A store that restarted empty forgets every beat: an instance
	// is gone only if it stays absent for longer than it takes to beat
	// again.
	Alive(ctx context.Context, name string) (bool, error)
}

// A Bus carries messages between the instances that share a store:
// every instance subscribed to a topic receives, in order, what is
// published on it after it subscribed. Delivery is at most once: a
// message published while an instance is cut off from the store is lost
// for it.
type Bus interface {
	// Publish sends msg to the subscribers of topic, this instance's
	// included.
	Publish(ctx context.Context, topic string, msg []byte) error
	// Subscribe calls f with each message of topic until cancel is
	// called; f is called from one goroutine at a time per
	// subscription, and must not block for long. A subscription that
	// cannot be made now is retried until cancel. Once cancel has
	// returned, f is not called; cancel waits for a call of f in
	// progress, unless f itself calls cancel, which then returns at
	// once.
	Subscribe(topic string, f func(msg []byte)) (cancel func())
}

// A KeyRing holds the keys that seal request state, so that an instance
// can open the state another instance sealed.
type KeyRing interface {
	// Keys returns the keys, the one to sign with first; every key
	// verifies. The ring makes its first key on first use and may rotate
	// them: a key stops signing after a while and is kept for verifying
	// long enough for request state sealed with it to expire.
	Keys(ctx context.Context) ([][]byte, error)
}
