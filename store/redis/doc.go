// Package redis is a store.Store on Redis, on the client
// github.com/redis/go-redis/v9: the instances of one MCP server that
// share it behave as one server (see package store).
//
//	st, err := redis.New(&redis.Options{URL: "redis://redis:6379/0"})
//	if err != nil { ... }
//	defer st.Close()
//	srv := server.New(info, &server.Options{Store: st})
//	h := streamable.NewHandler(srv, nil) // shares the server's store
//
// # What is stored, and for how long
//
// Every key and channel starts with Options.Prefix ("mcp:").
//
//   - s:{ID} (hash) and s:{ID}:u (set): a legacy session — its owner,
//     the negotiated revision, client info and capabilities, log level,
//     the last message delivered on its GET stream — and its resource
//     subscriptions. They expire SessionIdleTimeout (the handler's, 30
//     minutes by default) after the session's last request; an open GET
//     stream keeps them. sessions and sessions:ids (sorted sets) index
//     the initialized sessions, by expiry and by id (the order in which
//     Each visits them, which renewing a session does not change: each
//     session live throughout a walk is visited once); u:URI (set) the
//     subscribers of a resource. They expire with the last session they
//     index (renewing a session renews them); their entries are dropped
//     when read after their session is gone, and a few expired ones when
//     a session is initialized.
//   - e:{ID} (stream): the SSE events of the session's streams, at most
//     MaxEventsPerSession (1,000), kept EventTTL (1 hour) after the last;
//     deleted with the session. A stream's priming event keeps the ids of
//     the requests it answers, for an instance that ends the stream if
//     its writer dies.
//   - t:ID (string), to:OWNER and tasks (sorted sets), tseq: tasks, kept
//     for their TTL (the sets and the counter until the last task they
//     hold expires); at most MaxTasks, MaxTasksPerOwner per owner.
//   - keys (list): the request-state keys, one signing, the one before
//     it verifying; a new one every KeyRotation (24 hours). The list
//     expires twice KeyRotation after its newest key was made.
//   - instance (counter): numbers the instances; the one key kept for
//     good (one integer), since the number of a live instance must never
//     be handed out again. Every other key expires. live:NAME (string):
//     an HTTP handler that is alive (streamable.HandlerOptions.InstanceTTL,
//     5 s, after its last beat).
//   - channels b:TOPIC: the messages between instances (list changes,
//     resource updates and task states for subscriptions/listen streams,
//     clients' answers, cancellations, task updates, deleted sessions),
//     and the wake-ups of the follows of a session's events. Nothing is
//     kept.
//
// # When Redis is away
//
// Commands are bounded (Options.DialTimeout, CommandTimeout), retried
// by go-redis on a new connection, and fail with an error wrapping
// store.ErrUnavailable. The server and handler then refuse what needs
// the store with a clear error — legacy requests get HTTP 503 with
// Retry-After, a new session 503 — and serve what does not: modern
// requests, and multi round-trip requests with the keys they cached.
// Nothing crashes; when Redis is back, requests succeed again (within
// about a second: after a pool's worth of failed dials, go-redis probes
// the server once a second before it dials for commands again). A Redis
// that restarts empty (no persistence) has forgotten the sessions:
// their clients get 404 and initialize again, as the specification
// asks. Messages of the Bus published while an instance is cut off are
// lost for it; follows of a stream read it again every FollowPoll.
//
// Options.URL names one Redis server. Redis Cluster is not supported
// (the scripts touch keys of several slots), and Sentinel discovery is
// not built in: for failover, name an address that follows the primary.
// docs/scaleout.md shows a deployment (Compose, Kubernetes) and the
// benchmark.
package redis
