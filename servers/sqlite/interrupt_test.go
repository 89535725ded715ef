package sqlite_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// Statements whose first row comes at once and whose next one takes
// seconds of work (30 million steps of a recursion, 36 million pairs of a
// join; 5 s or more on a fast machine, 50 on a loaded one): the driver
// interrupted only the step that made the first row when a call's context
// ended, so these ran to their end whatever the timeout.
const (
	slowCount = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c"
	// slowUnion: a scalar subquery in the second arm.
	slowUnion = "SELECT 1 AS x UNION ALL SELECT (" + slowCount + ")"
	// slowInsert: slowUnion's rows into orders.
	slowInsert = "INSERT INTO orders (item, n) SELECT 7, 1 UNION ALL SELECT 7, (" + slowCount + ")"
	// slowRecursive: the first row of a recursion, and the last.
	slowRecursive = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT x FROM c WHERE x = 1 OR x = 30000000"
	// slowJoin: a cross join whose rows are its first pair and its last.
	slowJoin = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 6000) SELECT a.x, b.x FROM c AS a, c AS b WHERE a.x + b.x IN (2, 12000)"
)

// answerWithin bounds the answer to a call that its 200 ms timeout, or
// its client, ends: the interrupt stops a statement within milliseconds;
// the rest is slack for a loaded machine and the race detector.
const answerWithin = 2 * time.Second

// timed is the result of a call and how long it took; a call that gets
// no answer in a minute fails the test.
func (s *session) timed(name string, args any) (*mcp.CallToolResult, time.Duration) {
	s.t.Helper()
	start := time.Now()
	res := s.result(name, args)
	return res, time.Since(start)
}

// promptly makes a call that must succeed within answerWithin. A loaded
// machine (the race detector slows SQLite tenfold) can stall even a
// one-row INSERT past a 200 ms timeout: a call that ran out of its own
// time is tried again, twice at most. An interrupt meant for an earlier
// call would fail it at once, and say no such thing.
func (s *session) promptly(name string, args any) {
	s.t.Helper()
	for try := 1; ; try++ {
		res, took := s.timed(name, args)
		if took > answerWithin {
			s.t.Errorf("%s %v took %v, want less than %v", name, args, took.Round(time.Millisecond), answerWithin)
		}
		got := strings.Join(texts(res), "\n")
		if !res.IsError {
			return
		}
		if try < 3 && strings.Contains(got, "ran longer than") {
			s.t.Logf("%s %v ran out of its own time (%v), trying again: %s", name, args, took.Round(time.Millisecond), got)
			continue
		}
		s.t.Errorf("%s %v: unexpected error result after %v: %s", name, args, took.Round(time.Millisecond), got)
		return
	}
}

// TestSlowBetweenRowsIsInterrupted: a statement slow between two rows, not
// before its first, ran to its end past the call's timeout (a 200 ms
// timeout let one run for seconds), holding its connection: four such
// calls held every read connection, one the only writer. Every statement
// of a call stops at its timeout, wherever it is, reads and writes, in
// either mode of the server; the call is an error result, a write is
// rolled back, and the connection serves the next call.
func TestSlowBetweenRowsIsInterrupted(t *testing.T) {
	reads := []struct{ name, query string }{{"union", slowUnion}, {"recursion", slowRecursive}, {"join", slowJoin}}
	for _, mode := range []string{"read-write", "read-only"} {
		for _, c := range reads {
			t.Run(mode+"/read_query/"+c.name, func(t *testing.T) {
				db := newDB(t)
				s := serve(t, db, &sqlite.Options{Timeout: 200 * time.Millisecond, ReadOnly: mode == "read-only"})
				for range 5 { // more than the read connections
					res, took := s.timed("read_query", m{"query": c.query})
					if !res.IsError || !strings.Contains(strings.Join(texts(res), "\n"), "interrupted") {
						t.Fatalf("took %v, want an error result saying it was interrupted: %s", took.Round(time.Millisecond), texts(res))
					}
					if took > answerWithin {
						t.Fatalf("the call took %v to answer past its 200 ms timeout, want less than %v", took.Round(time.Millisecond), answerWithin)
					}
				}
				s.promptly("read_query", m{"query": "SELECT count(*) FROM items"})
				if ok, out := canWrite(t, db); !ok {
					t.Errorf("another process cannot write: %s", out)
				}
			})
		}
	}
	for _, c := range []struct{ name, tool, query string }{
		{"union", "write_query", slowInsert},
		{"recursion", "write_query", "INSERT INTO orders (item, n) VALUES (7, 7); INSERT INTO orders (item, n) SELECT 7, x FROM (" + slowRecursive + ")"},
		{"join", "write_query", "INSERT INTO orders (item, n) " + slowJoin + " RETURNING id"},
		{"union", "create_table", "CREATE TABLE slow AS " + slowUnion},
		// a read through write_query: SQLite does not end the transaction
		// of an interrupted read; the tool does
		{"read", "write_query", "INSERT INTO orders (item, n) VALUES (7, 7); WITH s(x) AS (" + slowUnion + ") SELECT x FROM s"},
	} {
		t.Run("read-write/"+c.tool+"/"+c.name, func(t *testing.T) {
			db := newDB(t)
			s := serve(t, db, &sqlite.Options{Timeout: 200 * time.Millisecond})
			for range 2 {
				res, took := s.timed(c.tool, m{"query": c.query})
				if got := strings.Join(texts(res), "\n"); !res.IsError || !strings.Contains(got, "interrupted") || !strings.Contains(got, "rolled back") {
					t.Fatalf("took %v, want an error result saying it was interrupted and rolled back: %s", took.Round(time.Millisecond), got)
				}
				if took > answerWithin {
					t.Fatalf("the call took %v to answer past its 200 ms timeout, want less than %v", took.Round(time.Millisecond), answerWithin)
				}
				s.promptly("write_query", m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"})
			}
			if got := count(t, db, "SELECT count(*) FROM orders WHERE item <> 8"); got != "4" {
				t.Errorf("the interrupted writes left %s rows of the 4 before them", got)
			}
			if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 8"); got != "2" {
				t.Errorf("the writes after them left %s rows of 2", got)
			}
			if got := count(t, db, "SELECT count(*) FROM sqlite_master WHERE name = 'slow'"); got != "0" {
				t.Errorf("the interrupted create_table made its table")
			}
			if ok, out := canWrite(t, db); !ok {
				t.Errorf("another process cannot write: %s", out)
			}
		})
	}
}

// TestSlowBetweenRowsIsCancelled: a client that gives up on such a call
// (its context ends, the client sends notifications/cancelled) stops the
// statement, far before the server's own timeout: the calls after it get
// the connections at once.
func TestSlowBetweenRowsIsCancelled(t *testing.T) {
	for _, c := range []struct{ name, tool, query string }{
		{"union", "read_query", slowUnion},
		{"recursion", "read_query", slowRecursive},
		{"union", "write_query", slowInsert},
	} {
		t.Run(c.tool+"/"+c.name, func(t *testing.T) {
			db := newDB(t)
			s := serve(t, db, &sqlite.Options{Timeout: time.Minute})
			raw, err := json.Marshal(m{"query": c.query})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for range 5 { // more than the read connections
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
					defer cancel()
					if _, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: raw}); err == nil {
						t.Error("a slow call given up on returned a result")
					}
				})
			}
			wg.Wait()
			next := m{"query": "SELECT count(*) FROM items"}
			if c.tool == "write_query" {
				next = m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"}
			}
			s.promptly(c.tool, next) // were the cancelled statements still running, it would wait for them
			if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 7"); got != "0" {
				t.Errorf("the cancelled writes left %s rows", got)
			}
			if ok, out := canWrite(t, db); !ok {
				t.Errorf("another process cannot write: %s", out)
			}
		})
	}
}
