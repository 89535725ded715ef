package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"

	_ "modernc.org/sqlite"
)

// writes are statements that change the database file, or another file,
// or the connection's read-only state; read_query must refuse every one
// (out names a file they would create).
func writes(out string) []string {
	return []string{
		"INSERT INTO items (name) VALUES ('x')",
		"INSERT INTO items (name) VALUES ('x') RETURNING id",
		"UPDATE items SET qty = 0",
		"DELETE FROM items",
		"DROP TABLE orders",
		"CREATE TABLE t (x)",
		"CREATE INDEX i ON items (name)",
		"CREATE TEMP TABLE t (x)",
		"ALTER TABLE items ADD COLUMN y",
		"PRAGMA query_only = 0",
		"PRAGMA query_only = 0; INSERT INTO items (name) VALUES ('x')",
		"PRAGMA journal_mode = WAL",
		"PRAGMA user_version = 7",
		"VACUUM",
		"VACUUM INTO '" + out + "'",
		"ATTACH '" + out + "' AS other",
		"ATTACH 'file:" + out + "?mode=rwc' AS other",
		"REINDEX",
		"ANALYZE",
		"SELECT 1; DELETE FROM items",
		"WITH x AS (SELECT 1) DELETE FROM items",
		"REPLACE INTO items (id, name) VALUES (1, 'x')",
		"BEGIN IMMEDIATE",
	}
}

// dirState lists the files of the database's directory with their sums:
// nothing may appear (a journal, a -wal file, an attached or vacuumed
// file) and nothing may change.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Name() + "=" + fileSum(t, filepath.Join(dir, e.Name())) + "\n")
	}
	return b.String()
}

// TestReadQueryRefusesWrites: read_query runs on a read-only connection,
// so SQLite refuses every statement that writes, whatever its text.
func TestReadQueryRefusesWrites(t *testing.T) {
	db := newDB(t)
	dir := filepath.Dir(db)
	s := serve(t, db, nil)
	before := dirState(t, dir)
	for _, q := range writes(filepath.Join(dir, "out.db")) {
		got := s.refused("read_query", m{"query": q})
		if !strings.Contains(got, "readonly") && !strings.Contains(got, "not authorized") && !strings.Contains(got, "authorization denied") {
			t.Errorf("read_query %q refused with an unexpected error: %s", q, got)
		}
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("read_query changed the directory:\nbefore\n%s\nafter\n%s", before, after)
	}
	// the pooled read connections are still read-only and usable
	for range 8 {
		s.refused("read_query", m{"query": "CREATE TEMP TABLE t (x)"})
		s.ok("read_query", m{"query": "SELECT count(*) FROM items"})
	}
}

// TestReadOnlyMode: with ReadOnly the file is opened mode=ro, the write
// tools are not offered, and no statement changes the file.
func TestReadOnlyMode(t *testing.T) {
	db := newDB(t)
	dir := filepath.Dir(db)
	before := dirState(t, dir)
	s := serve(t, db, &sqlite.Options{ReadOnly: true})
	var names []string
	for tool, err := range s.sess.Tools(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "append_insight describe_table list_tables read_query" {
		t.Errorf("read-only tools: %v", names)
	}
	for _, q := range writes(filepath.Join(dir, "out.db")) {
		s.refused("read_query", m{"query": q})
	}
	for _, tool := range []string{"write_query", "create_table"} {
		raw, _ := json.Marshal(m{"query": "CREATE TABLE t (x)"})
		if _, err := s.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: raw}); err == nil {
			t.Errorf("%s answered in read-only mode", tool)
		}
	}
	s.ok("read_query", m{"query": "SELECT * FROM items"})
	if !strings.Contains(s.sess.Instructions(), "read-only") {
		t.Errorf("the instructions do not say read-only: %s", s.sess.Instructions())
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("read-only mode changed the directory:\nbefore\n%s\nafter\n%s", before, after)
	}
}

func TestOpenReadOnlyNeedsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.db")
	if _, err := sqlite.Open(context.Background(), p, &sqlite.Options{ReadOnly: true}); err == nil {
		t.Fatal("Open read-only of a missing file succeeded")
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("Open read-only created the file")
	}
	// read-write creates it, and its directory, as the official server does
	p = filepath.Join(t.TempDir(), "new dir", "odd ?#% name.db")
	d, err := sqlite.Open(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the database file was not created at its name: %v", err)
	}
}

// endless is a query that never ends on its own.
const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

func TestQueryTimeout(t *testing.T) {
	s := serve(t, newDB(t), &sqlite.Options{Timeout: 100 * time.Millisecond})
	if got := s.refused("read_query", m{"query": endless}); !strings.Contains(got, "interrupted") {
		t.Errorf("an endless query: %s", got)
	}
}

// TestQueryCancelledWithRequest: a client that gives up on a call stops
// its statement. Were the statements left running, they would hold every
// read connection and the last call would wait for them.
func TestQueryCancelledWithRequest(t *testing.T) {
	s := serve(t, newDB(t), nil)
	raw, _ := json.Marshal(m{"query": endless})
	for range 6 { // more than the read connections
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: "read_query", Arguments: raw})
		cancel()
		if err == nil {
			t.Fatal("an endless query returned")
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ok("read_query", m{"query": "SELECT count(*) FROM items"})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // the statements' own timeout is 30 s
		t.Fatal("the cancelled statements still hold the read connections")
	}
}

// processPragmas reads the SQLite settings that belong to the process,
// not to a connection, on a connection of its own.
func processPragmas(t *testing.T) string {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, p := range []string{"temp_store_directory", "soft_heap_limit", "hard_heap_limit"} {
		var v sql.NullString
		if err := db.QueryRow("PRAGMA " + p).Scan(&v); err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s=%q ", p, v.String)
	}
	return b.String()
}

// TestProcessWidePragmasRefused: read_query, even in read-only mode,
// accepted PRAGMA temp_store_directory = '...', which changes where every
// SQLite connection of the process writes its temporary files, and the
// heap limits, which bound the memory of every connection of the process.
// None of them is the business of one call, in either mode.
func TestProcessWidePragmasRefused(t *testing.T) {
	before := processPragmas(t)
	t.Cleanup(func() { // put back what a failing run changed
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.Exec("PRAGMA temp_store_directory = ''; PRAGMA soft_heap_limit = 0")
	})
	db := newDB(t)
	dir := t.TempDir()
	pragmas := []string{
		"PRAGMA temp_store_directory = '" + dir + "'",
		"PRAGMA main.temp_store_directory = '" + dir + "'",
		"PRAGMA temp_store_directory = ''",
		"SELECT 1; PRAGMA temp_store_directory = '" + dir + "'",
		"PRAGMA data_store_directory = '" + dir + "'",
		"PRAGMA soft_heap_limit = 1000000000000",
		"PRAGMA hard_heap_limit = 1000000000000", // larger than the machine: harmless if it passes
		"PRAGMA soft_heap_limit = ''",
	}
	for _, ro := range []bool{false, true} {
		s := serve(t, db, &sqlite.Options{ReadOnly: ro})
		tools := []string{"read_query"}
		if !ro {
			tools = append(tools, "write_query")
		}
		for _, tool := range tools {
			for _, q := range pragmas {
				if res := s.result(tool, m{"query": q}); !res.IsError {
					t.Errorf("read-only=%v %s %q was accepted: %s", ro, tool, q, texts(res))
				}
			}
		}
	}
	if after := processPragmas(t); after != before {
		t.Errorf("the process's SQLite settings changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestReadOnlyBypassByChainingOrInjection is the class of StacklokLabs
// sqlite-mcp's CVE-2026-130008: a read-only tool made to write by
// chaining statements after a SELECT (";", comments, a CTE in front of a
// write, VACUUM INTO, ATTACH of a new file, turning PRAGMA query_only off
// first), or by SQL injection through a table name given to a tool that
// formats it into SQL. Here read_query runs on read-only connections under
// an authorizer, and describe_table binds the name as a parameter: none
// of them changes the file, creates a file or leaves anything behind, in
// either mode.
func TestReadOnlyBypassByChainingOrInjection(t *testing.T) {
	for _, ro := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only=%v", ro), func(t *testing.T) {
			db := newDB(t)
			dir := filepath.Dir(db)
			evil := filepath.Join(dir, "evil.db")
			sqlite3(t, db, `CREATE TABLE "we'ird ""name"" ]" (x INTEGER)`)
			before := dirState(t, dir)
			s := serve(t, db, &sqlite.Options{ReadOnly: ro})
			for _, q := range []string{
				"SELECT 1; DROP TABLE items",
				"SELECT 1; DELETE FROM items",
				"SELECT 1;DELETE FROM items;SELECT 2",
				"SELECT 1 /* ; */; DELETE FROM items -- ;",
				"SELECT 1 -- ;\n; UPDATE items SET qty = 0",
				"/* SELECT */ DELETE FROM items",
				"  \n\tselect 1;\n\tdelete from items",
				"SELECT 1; ATTACH DATABASE '" + evil + "' AS e",
				"SELECT 1; ATTACH DATABASE '" + evil + "' AS e; CREATE TABLE e.t (x)",
				"SELECT 1; ATTACH 'file:" + evil + "?mode=rwc' AS e",
				"SELECT 1; ATTACH '' AS e; CREATE TABLE e.t (x)",
				"SELECT 1; VACUUM INTO '" + evil + "'",
				"VACUUM main INTO '" + evil + "'",
				"WITH x AS (SELECT 1) DELETE FROM items",
				"WITH x AS (SELECT 1) INSERT INTO items (name) SELECT 'x' FROM x RETURNING id",
				"WITH x AS (SELECT 1) UPDATE items SET qty = 0 RETURNING id",
				"WITH RECURSIVE x(n) AS (SELECT 1) REPLACE INTO items (id, name) SELECT n, 'x' FROM x",
				"SELECT 1; PRAGMA query_only = 0; DELETE FROM items",
				"PRAGMA query_only = false; DELETE FROM items",
				"PRAGMA query_only = ''; CREATE TEMP TABLE t (x)",
				"PRAGMA query_only = ''; CREATE TEMP TRIGGER t AFTER INSERT ON main.orders BEGIN DELETE FROM items; END",
				"SELECT 1; PRAGMA writable_schema = 1; DELETE FROM sqlite_master",
				"SELECT 1; CREATE TEMP VIEW v AS SELECT 1",
				"SELECT 1; BEGIN; DELETE FROM items; COMMIT",
				"SELECT load_extension('" + evil + "')",
				"SELECT * FROM items; REPLACE INTO items (id, name) VALUES (1, 'x')",
			} {
				s.refused("read_query", m{"query": q})
			}
			for _, name := range []string{
				"x'); ATTACH DATABASE '" + evil + "' AS e; --",
				"x'; ATTACH DATABASE '" + evil + "' AS e; --",
				`x"); ATTACH DATABASE '` + evil + `' AS e; --`,
				"items); DROP TABLE items; --",
				"items'; DROP TABLE items; --",
				"items') UNION SELECT 1,2,3,4,5,6; DROP TABLE items; --",
				`"items"; DROP TABLE items`,
				"[items]; DELETE FROM items",
				"`items`; DELETE FROM items",
				"main.items",
				"items\x00'; DROP TABLE items",
			} {
				s.refused("describe_table", m{"table_name": name})
			}
			// a name that would break a formatted statement is just a name
			if r := decodeRows(t, s.ok("describe_table", m{"table_name": `we'ird "name" ]`})); len(r.Rows) != 1 || r.Rows[0]["name"] != "x" {
				t.Errorf("describe_table of an odd name: %v", r.Rows)
			}
			if r := decodeRows(t, s.ok("list_tables", m{})); len(r.Rows) != 4 {
				t.Errorf("list_tables after the attempts: %v", r.Rows)
			}
			if got := count(t, db, "SELECT count(*) FROM items WHERE qty != 0"); got != "4" {
				t.Errorf("items changed: %s rows with a quantity", got)
			}
			if after := dirState(t, dir); after != before {
				t.Errorf("the directory changed:\nbefore\n%s\nafter\n%s", before, after)
			}
		})
	}
}
