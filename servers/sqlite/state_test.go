package sqlite_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// count runs a count(*) query with the sqlite3 command, another process
// than the server's, and returns the number it prints.
func count(t *testing.T, db, q string) string {
	t.Helper()
	return strings.TrimSpace(sqlite3(t, db, q))
}

// canWrite tells whether another process (the sqlite3 command, which
// does not wait for locks) can write the database now, and what it said.
func canWrite(t *testing.T, db string) (bool, string) {
	t.Helper()
	out, err := exec.Command("sqlite3", "-bail", db, "INSERT INTO orders (item, n) VALUES (99, 99); DELETE FROM orders WHERE item = 99").CombinedOutput()
	return err == nil, strings.TrimSpace(string(out))
}

// TestWriteQueryLosesNoAcknowledgedWrite: a write_query that failed part
// way, or that opened a transaction or a savepoint without ending it, left
// the one pooled read-write connection inside a transaction: the next
// write_query answered affected_rows 1 and nothing reached the file (lost
// when the server stopped), create_table failed with "cannot start a
// transaction within a transaction", and every other process got
// "database is locked". Whatever one call does, the next one must start
// on a connection in autocommit: a failed call changes nothing, and says
// it was rolled back; an acknowledged write is in the file, as the sqlite3
// command sees it from another process while the server runs.
func TestWriteQueryLosesNoAcknowledgedWrite(t *testing.T) {
	for _, q := range []string{
		"BEGIN; INSERT INTO orders (item, n) VALUES (7, 7); INSERT INTO nosuch VALUES (1); COMMIT",
		"BEGIN",
		"BEGIN IMMEDIATE; INSERT INTO orders (item, n) VALUES (7, 7)",
		"BEGIN EXCLUSIVE TRANSACTION",
		"INSERT INTO orders (item, n) VALUES (7, 7); INSERT INTO nosuch VALUES (1)",
		"INSERT INTO orders (item, n) VALUES (7, 7); BEGIN",
		"BEGIN; INSERT INTO orders (item, n) VALUES (7, 7); ROLLBACK",
		"BEGIN; INSERT INTO orders (item, n) VALUES (7, 7); COMMIT; BEGIN",
		"SAVEPOINT sp; INSERT INTO orders (item, n) VALUES (7, 7)",
		"SAVEPOINT a; SAVEPOINT b; RELEASE b",
		"SAVEPOINT a; INSERT INTO orders (item, n) VALUES (7, 7); ROLLBACK TO a",
		"RELEASE nosuch",
		"COMMIT",
		"END",
		"ROLLBACK",
		"INSERT INTO orders (item, n) VALUES (7, 7); COMMIT; INSERT INTO orders (item, n) VALUES (7, 7); SELECT nosuch()",
		"UPDATE items SET qty = qty; INSERT OR ROLLBACK INTO items (id, name) VALUES (1, 'dup')",
	} {
		t.Run(q, func(t *testing.T) {
			db := newDB(t)
			s := serve(t, db, nil)
			res := s.result("write_query", m{"query": q})
			answer := strings.Join(texts(res), "\n")
			// what the call acknowledged is in the file; a failed call left nothing
			want := 0
			if !res.IsError {
				want = strings.Count(q, "(7, 7)")
				if strings.Contains(q, "ROLLBACK TO") {
					want = 0
				}
			} else if !strings.Contains(answer, "rolled back") {
				t.Errorf("the failed call does not say it was rolled back: %s", answer)
			}
			if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 7"); got != fmt.Sprint(want) {
				t.Errorf("after %q (answered %v: %s) sqlite3 sees %s rows of it, want %d", q, res.IsError, answer, got, want)
			}
			if ok, out := canWrite(t, db); !ok {
				t.Errorf("after %q another process cannot write: %s", q, out)
			}
			// the next calls work, and what they acknowledge is in the file
			if got := texts(s.ok("write_query", m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"}))[0]; got != `[{"affected_rows":1}]` {
				t.Errorf("the next write_query = %s", got)
			}
			if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 8"); got != "1" {
				t.Errorf("after %q the next acknowledged write is not in the file: sqlite3 sees %s rows of it", q, got)
			}
			if res := s.result("create_table", m{"query": "CREATE TABLE after (x)"}); res.IsError {
				t.Errorf("after %q create_table failed: %s", q, texts(res))
			}
			if got := count(t, db, "SELECT count(*) FROM sqlite_master WHERE name = 'after'"); got != "1" {
				t.Errorf("after %q the table create_table made is not in the file", q)
			}
			if ok, out := canWrite(t, db); !ok {
				t.Errorf("after %q and two more calls another process cannot write: %s", q, out)
			}
		})
	}
}

// TestReadQueryLeavesNoLockBehind: BEGIN, SAVEPOINT or PRAGMA
// locking_mode = EXCLUSIVE through read_query left a pooled read
// connection holding its lock on the file after the call: every writer,
// the server's own write_query and any other process, then got "database
// is locked".
func TestReadQueryLeavesNoLockBehind(t *testing.T) {
	for _, ro := range []bool{false, true} {
		for _, q := range []string{
			"BEGIN; SELECT count(*) FROM items",
			"BEGIN IMMEDIATE",
			"SAVEPOINT a; SELECT count(*) FROM items",
			"PRAGMA locking_mode = EXCLUSIVE; SELECT count(*) FROM items",
			"PRAGMA main.locking_mode = EXCLUSIVE",
		} {
			t.Run(fmt.Sprintf("read-only=%v/%s", ro, q), func(t *testing.T) {
				db := newDB(t)
				s := serve(t, db, &sqlite.Options{ReadOnly: ro})
				for range 8 { // twice the pooled read connections
					s.result("read_query", m{"query": q})
					s.ok("read_query", m{"query": "SELECT count(*) FROM items"})
				}
				if ok, out := canWrite(t, db); !ok {
					t.Errorf("after read_query %q another process cannot write: %s", q, out)
				}
				if !ro {
					if res := s.result("write_query", m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"}); res.IsError {
						t.Errorf("after read_query %q write_query failed: %s", q, texts(res))
					}
				}
			})
		}
	}
}

// TestCallsLeaveNoConnectionState: a call could change its pooled
// connection for the calls after it: a TEMP trigger that deletes rows on
// every later insert, invisible to list_tables and to every other
// process; PRAGMA query_only or locking_mode on the writer; TEMP or
// ATTACHed tables whose acknowledged rows never reach the file; PRAGMA
// case_sensitive_like on a reader, changing what later queries answer.
// Such statements are refused, and nothing of them remains.
func TestCallsLeaveNoConnectionState(t *testing.T) {
	db := newDB(t)
	dir := filepath.Dir(db)
	s := serve(t, db, nil)
	for _, q := range []string{
		"CREATE TEMP TRIGGER wipe AFTER INSERT ON main.orders BEGIN DELETE FROM main.items; END",
		"CREATE TEMP TABLE scratch (x); INSERT INTO scratch VALUES (1)",
		"CREATE TABLE temp.scratch (x)",
		"CREATE TEMP VIEW v AS SELECT 1",
		"CREATE VIRTUAL TABLE temp.f USING fts5(x)",
		"ATTACH '' AS side; CREATE TABLE side.t (x); INSERT INTO side.t VALUES (1)",
		"ATTACH ':memory:' AS side",
		"ATTACH '" + filepath.Join(dir, "side.db") + "' AS side",
		"DETACH main",
		"PRAGMA query_only = 1",
		"PRAGMA query_only = ''",
		"PRAGMA locking_mode = EXCLUSIVE",
		"PRAGMA journal_mode = OFF",
		"PRAGMA synchronous = OFF",
		"PRAGMA ignore_check_constraints = 1",
		"PRAGMA recursive_triggers = 0",
		"PRAGMA foreign_keys = ON",
		"PRAGMA busy_timeout = 0",
		"PRAGMA cache_size = -1000000000",
		"PRAGMA writable_schema = 1",
		"PRAGMA schema_version = 1",
		"PRAGMA case_sensitive_like = 1",
	} {
		if res := s.result("write_query", m{"query": q}); !res.IsError {
			t.Errorf("write_query %q was accepted: %s", q, texts(res))
		}
	}
	for _, q := range []string{
		"CREATE TEMP TABLE scratch (x)",
		"CREATE TABLE temp.scratch (x)",
	} {
		if res := s.result("create_table", m{"query": q}); !res.IsError {
			t.Errorf("create_table %q was accepted: %s", q, texts(res))
		}
	}
	for range 8 { // twice the pooled read connections
		for _, q := range []string{"PRAGMA case_sensitive_like = 1", "PRAGMA query_only = ''", "ATTACH '' AS side", "PRAGMA cache_size = 1"} {
			if res := s.result("read_query", m{"query": q}); !res.IsError {
				t.Errorf("read_query %q was accepted: %s", q, texts(res))
			}
		}
	}
	// the writer is as it was: writable, no trigger, no lock kept
	s.ok("write_query", m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"})
	s.ok("create_table", m{"query": "CREATE TABLE after (x)"})
	if got := count(t, db, "SELECT count(*) FROM items"); got != "5" {
		t.Errorf("an insert into orders left %s items of 5", got)
	}
	if ok, out := canWrite(t, db); !ok {
		t.Errorf("another process cannot write: %s", out)
	}
	for range 8 {
		r := decodeRows(t, s.ok("read_query", m{"query": "SELECT 'a' LIKE 'A' AS l, (SELECT count(*) FROM pragma_database_list) AS dbs"}))
		if fmt.Sprintf("%v %v", r.Rows[0]["l"], r.Rows[0]["dbs"]) != "1 1" {
			t.Errorf("a read connection was changed by an earlier call: %v", r.Rows[0])
		}
	}
	if res := s.result("read_query", m{"query": "SELECT * FROM temp.scratch"}); !res.IsError {
		t.Errorf("a TEMP table is on a read connection: %s", texts(res))
	}
	// the PRAGMAs that only read, and the ones that change the file, still work
	s.ok("read_query", m{"query": "PRAGMA table_info(items)"})
	s.ok("read_query", m{"query": "PRAGMA index_list('items')"})
	s.ok("read_query", m{"query": "SELECT * FROM pragma_foreign_key_list('orders')"})
	s.ok("read_query", m{"query": "PRAGMA integrity_check"})
	s.ok("read_query", m{"query": "PRAGMA user_version"})
	s.ok("write_query", m{"query": "PRAGMA user_version = 7"})
	s.ok("write_query", m{"query": "PRAGMA defer_foreign_keys = ON; DELETE FROM items WHERE id = 4"})
	if got := count(t, db, "PRAGMA user_version"); got != "7" {
		t.Errorf("user_version = %s after write_query set it to 7", got)
	}
}

// TestInterruptedWriteLeavesNothing: a write_query interrupted at its
// timeout is rolled back whole, and the next call works on a connection
// in autocommit.
func TestInterruptedWriteLeavesNothing(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, &sqlite.Options{Timeout: 200 * time.Millisecond})
	endless := "INSERT INTO orders (item, n) VALUES (7, 7); INSERT INTO orders (item, n) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT 7, x FROM c"
	for range 3 {
		if got := s.refused("write_query", m{"query": endless}); !strings.Contains(got, "interrupted") || !strings.Contains(got, "rolled back") {
			t.Errorf("an endless write: %s", got)
		}
		s.ok("write_query", m{"query": "INSERT INTO orders (item, n) VALUES (8, 8)"})
	}
	if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 7"); got != "0" {
		t.Errorf("the interrupted writes left %s rows", got)
	}
	if got := count(t, db, "SELECT count(*) FROM orders WHERE item = 8"); got != "3" {
		t.Errorf("the writes after them left %s rows of 3", got)
	}
	if ok, out := canWrite(t, db); !ok {
		t.Errorf("another process cannot write: %s", out)
	}
}
