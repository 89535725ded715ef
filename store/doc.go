// Package store names what the instances of one MCP server share when
// they run behind a load balancer, so that any instance can serve any
// request, in both protocol eras:
//
//   - Sessions: the legacy (2025-era) sessions and what they negotiated
//     (revision, client capabilities and info, log level, resource
//     subscriptions). A session initialized on one instance goes on on
//     any other.
//   - Events: the SSE events of their streams, bounded, so that a client
//     that lost a stream resumes it with Last-Event-ID on any instance,
//     and an instance can carry on a stream that another is writing. A
//     session's own stream (SessionStream) holds the messages that relate
//     to no request, which the instance holding the client's GET stream
//     delivers wherever they were raised.
//   - Bus: messages between instances: list changes and resource updates
//     for the subscriptions/listen streams open elsewhere, the client's
//     answers to a request another instance sent, cancellations, task
//     updates for the instance that runs the task.
//   - Tasks: the state of tasks (tasks/get answers on any instance).
//   - Keys: the keys that seal the request state of multi round-trip
//     requests (2026-07-28), so that a round begun on one instance
//     completes on another.
//   - Instances: which instances are alive (each beats with a short
//     TTL), so that an instance following a stream another one writes
//     can tell that its writer died, and end the stream for the client
//     with an error answering its requests (their ids are the meta of
//     the stream's priming event, Events.Prime) instead of waiting.
//
// A Store provides them all. Memory is the in-process implementation;
// package store/redis shares them through Redis. A server without a
// store (the default) keeps everything in its own memory, as one
// instance must, on paths that cost nothing for sharing.
//
// Wire a store into the server and its HTTP handler:
//
//	st := redis.New(...)               // or store.NewMemory(nil) in one process
//	srv := server.New(info, &server.Options{Store: st})
//	h := streamable.NewHandler(srv, nil) // takes the server's store
//
// Package storetest holds the tests every implementation must pass.
package store
