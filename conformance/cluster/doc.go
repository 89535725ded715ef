// Package cluster holds end-to-end tests of scale-out: three
// everything-server processes sharing one real redis-server, behind a
// round-robin front on loopback, checked to behave as one server in both
// protocol eras (see cluster_test.go). It has no code of its own.
package cluster
