package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/mcpwire/mcpwire/store"
)

// Defaults of Options.
const (
	// DefaultPrefix starts every key and channel name.
	DefaultPrefix = "mcp:"
	// DefaultDialTimeout bounds making a connection.
	DefaultDialTimeout = 2 * time.Second
	// DefaultCommandTimeout bounds reading and writing one command.
	DefaultCommandTimeout = time.Second
	// DefaultMaxEventsPerSession bounds the SSE events kept per session.
	DefaultMaxEventsPerSession = store.DefaultMaxEventsPerSession
	// DefaultEventTTL is how long the events of a session are kept after
	// its last event.
	DefaultEventTTL = time.Hour
	// DefaultKeyRotation is how long a request-state key signs; it then
	// verifies for as long again.
	DefaultKeyRotation = 24 * time.Hour
	// DefaultFollowPoll is the longest a follow waits without a wake-up
	// before it looks at its stream again (wake-ups are lost while the
	// connection to Redis is down).
	DefaultFollowPoll = 2 * time.Second
)

// Options configure a Store. A nil *Options, and every zero field, mean
// the defaults.
type Options struct {
	// URL locates the Redis server: redis://[[user]:password@]host[:port][/db]
	// (rediss:// for TLS), as go-redis's ParseURL reads it, with its
	// query options (dial_timeout, pool_size, ...). Default
	// redis://localhost:6379/0.
	URL string
	// Prefix starts every key and channel; servers that are not
	// instances of one another must not share a prefix. Default
	// DefaultPrefix.
	Prefix string
	// PoolSize bounds the connections of the pool (default go-redis's:
	// 10 per CPU); MinIdleConns keeps that many open.
	PoolSize, MinIdleConns int
	// DialTimeout bounds making a connection (default
	// DefaultDialTimeout); CommandTimeout bounds reading and writing each
	// command (default DefaultCommandTimeout). A request's own deadline
	// applies too. A command that fails for the network is retried
	// (go-redis: 3 times, with backoff) on a new connection.
	DialTimeout, CommandTimeout time.Duration
	// MaxEventsPerSession bounds the events kept per session, the oldest
	// going first. Default DefaultMaxEventsPerSession.
	MaxEventsPerSession int
	// EventTTL is how long a session's events are kept after its last
	// event. Default DefaultEventTTL.
	EventTTL time.Duration
	// KeyRotation is how long a request-state key signs before the next
	// one is made; it verifies for as long again, which must exceed
	// server.Options.RequestStateTTL. Default DefaultKeyRotation.
	KeyRotation time.Duration
	// MaxTasks and MaxTasksPerOwner bound the tasks kept. Defaults
	// store.DefaultMaxTasks and store.DefaultMaxTasksPerOwner.
	MaxTasks, MaxTasksPerOwner int
	// FollowPoll is the longest a follow of a stream waits for a wake-up
	// before it reads the stream again. Default DefaultFollowPoll.
	FollowPoll time.Duration
	// Logger receives diagnostics. Default: discarded.
	Logger *slog.Logger
}

// A Store is a store.Store on Redis. Make it with New, and Close it after
// the servers and handlers that use it.
type Store struct {
	rdb    *goredis.Client
	opts   Options
	prefix string
	log    *slog.Logger

	sessions sessions
	events   events
	bus      *bus
	tasks    tasks
	keys     keyRing
	live     instances
}

// New returns a store on the Redis server opts.URL names. It does not
// connect yet: connections are made, and made again after a failure, as
// commands need them.
func New(opts *Options) (*Store, error) {
	s := &Store{}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	if o.URL == "" {
		o.URL = "redis://localhost:6379/0"
	}
	ro, err := goredis.ParseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("store/redis: %w", err)
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = DefaultCommandTimeout
	}
	if o.MaxEventsPerSession <= 0 {
		o.MaxEventsPerSession = DefaultMaxEventsPerSession
	}
	if o.EventTTL <= 0 {
		o.EventTTL = DefaultEventTTL
	}
	if o.KeyRotation <= 0 {
		o.KeyRotation = DefaultKeyRotation
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = store.DefaultMaxTasks
	}
	if o.MaxTasksPerOwner <= 0 {
		o.MaxTasksPerOwner = store.DefaultMaxTasksPerOwner
	}
	if o.FollowPoll <= 0 {
		o.FollowPoll = DefaultFollowPoll
	}
	s.log = o.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	ro.DialTimeout = o.DialTimeout
	ro.ReadTimeout = o.CommandTimeout
	ro.WriteTimeout = o.CommandTimeout
	ro.ContextTimeoutEnabled = true
	if o.PoolSize > 0 {
		ro.PoolSize = o.PoolSize
	}
	if o.MinIdleConns > 0 {
		ro.MinIdleConns = o.MinIdleConns
	}
	// No background maintenance goroutines: what the store starts, Close
	// ends.
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	ro.DisableIdentity = true
	setLogger(s.log)
	s.rdb = goredis.NewClient(ro)
	s.prefix = o.Prefix
	s.sessions = sessions{s}
	s.events = events{s: s}
	s.bus = newBus(s)
	s.tasks = tasks{s}
	s.keys = keyRing{s: s}
	s.live = instances{s}
	return s, nil
}

// Close ends the store's connections and its subscriptions.
func (s *Store) Close() error {
	s.bus.close()
	return s.rdb.Close()
}

// Ping checks that Redis answers.
func (s *Store) Ping(ctx context.Context) error {
	return wrap(s.rdb.Ping(ctx).Err())
}

// Sessions implements store.Store.
func (s *Store) Sessions() store.Sessions { return &s.sessions }

// Events implements store.Store.
func (s *Store) Events() store.Events { return &s.events }

// Bus implements store.Store.
func (s *Store) Bus() store.Bus { return s.bus }

// Tasks implements store.Store.
func (s *Store) Tasks() store.Tasks { return &s.tasks }

// Keys implements store.Store.
func (s *Store) Keys() store.KeyRing { return &s.keys }

// Instances implements store.Store.
func (s *Store) Instances() store.Instances { return &s.live }

// NewInstance implements store.Store: a counter in Redis, so that the
// numbers of live instances differ until a million have started.
func (s *Store) NewInstance(ctx context.Context) (int64, error) {
	n, err := s.rdb.Incr(ctx, s.prefix+"instance").Result()
	if err != nil {
		return 0, wrap(err)
	}
	return (n-1)%store.MaxInstance + 1, nil
}

// The store is a store.Store.
var _ store.Store = (*Store)(nil)

// wrap marks the errors of reaching Redis as store.ErrUnavailable.
func wrap(err error) error {
	if err == nil || errors.Is(err, goredis.Nil) {
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, goredis.ErrClosed) || errors.Is(err, goredis.ErrPoolTimeout) || isConnError(err) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return fmt.Errorf("store/redis: %w", err)
}

// isConnError reports errors of a connection that broke or was refused,
// which go-redis does not always type (a server that is loading, for
// instance, or a reset).
func isConnError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"connection refused", "connection reset", "broken pipe", "EOF", "LOADING", "i/o timeout"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// go-redis writes its diagnostics (failed dials, for instance) to one
// logger per process, standard error by default; a library must not
// write there on its own. They go to the Options.Logger of the store
// made last, at debug level (the errors they describe reach the caller
// anyway).
var logger struct {
	sync.Mutex
	log *slog.Logger
}

func setLogger(l *slog.Logger) {
	logger.Lock()
	logger.log = l
	logger.Unlock()
	loggerOnce.Do(func() { goredis.SetLogger(forwarder{}) })
}

var loggerOnce sync.Once

type forwarder struct{}

func (forwarder) Printf(ctx context.Context, format string, v ...any) {
	logger.Lock()
	l := logger.log
	logger.Unlock()
	if l != nil {
		l.Debug("store/redis: go-redis: " + fmt.Sprintf(format, v...))
	}
}
