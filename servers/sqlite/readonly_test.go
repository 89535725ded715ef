package sqlite_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"
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
