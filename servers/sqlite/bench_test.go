package sqlite_test

import (
	"fmt"
	"testing"
)

// BenchmarkReadQuery is one read_query call through a client session on
// the in-memory transport: a small result.
func BenchmarkReadQuery(b *testing.B) {
	s := serve(b, newDB(b), nil)
	for b.Loop() {
		s.ok("read_query", m{"query": "SELECT id, name FROM items WHERE id = 1"})
	}
}

// BenchmarkWriteQuery is one write_query call: an insert, one commit
// (the synchronous writes of the journal dominate).
func BenchmarkWriteQuery(b *testing.B) {
	s := serve(b, newDB(b), nil)
	i := 0
	for b.Loop() {
		i++
		s.ok("write_query", m{"query": fmt.Sprintf("INSERT INTO orders (item, n) VALUES (1, %d)", i)})
	}
}
