package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// sqlite3JSON runs the query with sqlite3 -json and decodes its rows.
func sqlite3JSON(t *testing.T, db, q string) []map[string]any {
	t.Helper()
	out := sqlite3(t, db, "-json", q)
	if strings.TrimSpace(out) == "" {
		return nil // sqlite3 prints nothing for no rows
	}
	var rows []map[string]any
	d := json.NewDecoder(strings.NewReader(out))
	d.UseNumber()
	if err := d.Decode(&rows); err != nil {
		t.Fatalf("sqlite3 -json %q: %v\n%s", q, err, out)
	}
	return rows
}

// sameValue compares a value of ours with sqlite3's: numbers by value
// (sqlite3 writes 3.0 where Go writes 3), integers exactly, the rest as
// they are.
func sameValue(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		ai, aerr := strconv.ParseInt(string(an), 10, 64)
		bi, berr := strconv.ParseInt(string(bn), 10, 64)
		if aerr == nil && berr == nil {
			return ai == bi
		}
		af, aerr := an.Float64()
		bf, berr := bn.Float64()
		return aerr == nil && berr == nil && af == bf
	}
	return fmt.Sprint(a) == fmt.Sprint(b) && aok == bok
}

func compareRows(t *testing.T, what string, got rows, want []map[string]any) {
	t.Helper()
	if len(got.Rows) != len(want) {
		t.Errorf("%s: %d rows, sqlite3 shows %d:\n%v\n%v", what, len(got.Rows), len(want), got.Rows, want)
		return
	}
	for i := range want {
		if len(got.Rows[i]) != len(want[i]) {
			t.Errorf("%s: row %d has columns %v, sqlite3 %v", what, i, got.Rows[i], want[i])
		}
		for k, w := range want[i] {
			if g, ok := got.Rows[i][k]; !ok || !sameValue(g, w) {
				t.Errorf("%s: row %d column %s = %v (%T), sqlite3 %v (%T)", what, i, k, g, g, w, w)
			}
		}
	}
}

func TestReadQueryMatchesSqlite3(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, nil)
	for _, q := range []string{
		"SELECT * FROM items ORDER BY id",
		"SELECT id, name, price * qty AS value FROM items WHERE qty > 0 ORDER BY value DESC",
		"SELECT i.name, sum(o.n) AS total, count(*) AS orders FROM items i JOIN orders o ON o.item = i.id GROUP BY i.id ORDER BY i.id",
		"SELECT * FROM totals ORDER BY item",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 25) SELECT x, x * x AS sq, x / 3.0 AS third FROM c",
		"SELECT name FROM items WHERE note IS NULL",
		"SELECT count(*) AS n, avg(price) AS avg_price, max(added) AS latest FROM items",
		"SELECT typeof(price) AS t, length(name) AS l, upper(name) AS u FROM items ORDER BY id",
		"SELECT * FROM items WHERE id > 100",
		"PRAGMA table_info(items)",
		"  select 'lowercase and leading spaces' as s",
		"SELECT json_object('a', 1, 'b', 'two') AS j",
	} {
		res := s.ok("read_query", m{"query": q})
		compareRows(t, q, decodeRows(t, res), sqlite3JSON(t, db, q))
		if text := texts(res)[0]; !json.Valid([]byte(text)) {
			t.Errorf("%s: the text is not a JSON array: %s", q, text)
		}
	}
}

func TestBlobsAndRepeatedColumns(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, nil)
	got := decodeRows(t, s.ok("read_query", m{"query": "SELECT k, v FROM blobs ORDER BY k"}))
	hexes := strings.Fields(strings.ToLower(sqlite3(t, db, "SELECT 'x''' || hex(v) || '''' FROM blobs ORDER BY k")))
	for i, h := range hexes {
		if got.Rows[i]["v"] != h {
			t.Errorf("blob %d = %v, sqlite3 says %s", i, got.Rows[i]["v"], h)
		}
	}
	res := s.ok("read_query", m{"query": "SELECT 1 AS a, 2 AS a, 3 AS 'a:2', 4 AS a"})
	r := decodeRows(t, res)
	seen := map[string]bool{}
	for _, c := range r.Columns {
		if seen[c] {
			t.Errorf("repeated column name %q in %v", c, r.Columns)
		}
		seen[c] = true
	}
	if texts(res)[0] != `[{"a":1,"a:2":2,"a:2:2":3,"a:3":4}]` {
		t.Errorf("text = %s", texts(res)[0])
	}
}

func TestSchemaToolsMatchSqlite3(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, nil)
	compareRows(t, "list_tables", decodeRows(t, s.ok("list_tables", m{})), sqlite3JSON(t, db, "SELECT name FROM sqlite_master WHERE type='table'"))
	for _, table := range []string{"items", "orders", "blobs", "totals"} {
		compareRows(t, "describe_table "+table, decodeRows(t, s.ok("describe_table", m{"table_name": table})),
			sqlite3JSON(t, db, "PRAGMA table_info('"+table+"')"))
	}
	before := fileSum(t, db)
	for _, name := range []string{"nope", "items); DROP TABLE items; --", "items'", ""} {
		s.refused("describe_table", m{"table_name": name})
	}
	if fileSum(t, db) != before {
		t.Error("describe_table changed the database")
	}
}

func TestWriteQueryAndCreateTable(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, nil)
	for _, tc := range []struct{ q, want string }{
		{"INSERT INTO orders (item, n) VALUES (2, 5), (2, 6)", `[{"affected_rows":2}]`},
		{"UPDATE items SET qty = qty + 1 WHERE qty > 0", `[{"affected_rows":3}]`},
		{"DELETE FROM orders WHERE item = 1", `[{"affected_rows":2}]`},
		{"  delete from blobs", `[{"affected_rows":2}]`},
	} {
		if got := texts(s.ok("write_query", m{"query": tc.q}))[0]; got != tc.want {
			t.Errorf("write_query %s = %s, want %s", tc.q, got, tc.want)
		}
	}
	if got := sqlite3(t, db, "SELECT group_concat(item || ':' || n, ' ') FROM orders ORDER BY id"); got != "3:1 5:2 2:5 2:6\n" {
		t.Errorf("orders after the writes: %q", got)
	}
	if got := sqlite3(t, db, "SELECT group_concat(qty, ' ') FROM items ORDER BY id"); got != "11 0 8 9007199254740994 -42\n" {
		t.Errorf("quantities after the writes: %q", got)
	}
	if got := s.refused("write_query", m{"query": "SELECT * FROM items"}); got != "Error: SELECT queries are not allowed for write_query" {
		t.Errorf("write_query SELECT: %s", got)
	}
	if got := s.refused("write_query", m{"query": "INSERT INTO nope VALUES (1)"}); !strings.HasPrefix(got, "Database error: ") || !strings.Contains(got, "no such table: nope") {
		t.Errorf("write_query into a missing table: %s", got)
	}

	if got := texts(s.ok("create_table", m{"query": "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE)"}))[0]; got != "Table created successfully" {
		t.Errorf("create_table = %s", got)
	}
	s.ok("create_table", m{"query": "create table copy AS SELECT id, name FROM items"})
	if got := sqlite3(t, db, "SELECT group_concat(name, ' ') FROM sqlite_master WHERE type = 'table' ORDER BY name"); !strings.Contains(got, "notes") || !strings.Contains(got, "copy") {
		t.Errorf("tables after create_table: %s", got)
	}
	if got := sqlite3(t, db, "SELECT count(*) FROM copy"); got != "5\n" {
		t.Errorf("CREATE TABLE AS SELECT copied %s rows", got)
	}
	if got := s.refused("create_table", m{"query": "DROP TABLE items"}); got != "Error: Only CREATE TABLE statements are allowed" {
		t.Errorf("create_table DROP: %s", got)
	}
}

// TestCreateTableCannotSmuggleAWrite: create_table is not destructive, so
// a statement after the CREATE TABLE cannot drop or change anything, and
// the CREATE TABLE before it is undone.
func TestCreateTableCannotSmuggleAWrite(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, nil)
	before := fileSum(t, db)
	for _, q := range []string{
		"CREATE TABLE a (x); DROP TABLE items",
		"CREATE TABLE a (x); DELETE FROM items",
		"CREATE TABLE a (x); UPDATE items SET qty = 0",
		"CREATE TABLE a (x); INSERT INTO items (name) VALUES ('x')",
		"CREATE TABLE a (x); ALTER TABLE items RENAME TO gone",
		"CREATE TABLE a (x); CREATE TRIGGER t AFTER INSERT ON orders BEGIN DELETE FROM items; END",
		"CREATE TABLE a (x); COMMIT; DROP TABLE items",
		"CREATE TABLE a (x); PRAGMA writable_schema = 1",
		"CREATE TABLE a (x); ATTACH 'elsewhere.db' AS e",
		"CREATE TABLE a (x); CREATE VIEW v AS SELECT 1",
	} {
		s.refused("create_table", m{"query": q})
	}
	if fileSum(t, db) != before {
		t.Errorf("create_table changed the database: tables now %s", sqlite3(t, db, "SELECT group_concat(name) FROM sqlite_master"))
	}
	s.ok("create_table", m{"query": "CREATE TABLE after (x)"}) // the connection is usable again
	s.ok("write_query", m{"query": "INSERT INTO after VALUES (1)"})
}

func TestResultsAreBounded(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, &sqlite.Options{MaxRows: 5, MaxBytes: 400})
	q := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c" // endless
	res := s.ok("read_query", m{"query": q})
	r := decodeRows(t, res)
	if len(r.Rows) != 5 || !r.Truncated || len(texts(res)) != 2 || !strings.Contains(texts(res)[1], "cut at 5 rows") {
		t.Errorf("a result past MaxRows: %d rows, truncated %v, %q", len(r.Rows), r.Truncated, texts(res))
	}
	res = s.ok("read_query", m{"query": "SELECT x, printf('%.100c', 'x') AS pad FROM (" + q + ")"})
	r = decodeRows(t, res)
	if len(r.Rows) != 3 || !r.Truncated || !strings.Contains(texts(res)[1], "at 400 bytes") || len(texts(res)[0]) > 400 {
		t.Errorf("a result past MaxBytes: %d rows, truncated %v, %q", len(r.Rows), r.Truncated, texts(res))
	}
	r = decodeRows(t, s.ok("read_query", m{"query": "SELECT id FROM items"}))
	if r.Truncated || len(r.Rows) != 5 {
		t.Errorf("a result at the limit: %d rows, truncated %v", len(r.Rows), r.Truncated)
	}
}

func TestMemoAndPrompt(t *testing.T) {
	s := serve(t, newDB(t), nil)
	ctx := context.Background()
	read := func() string {
		res, err := s.sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: "memo://insights"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Contents[0].Text
	}
	if got := read(); got != "No business insights have been discovered yet." {
		t.Errorf("empty memo = %q", got)
	}
	if got := texts(s.ok("append_insight", m{"insight": "Apples sell best"}))[0]; got != "Insight added to memo" {
		t.Errorf("append_insight = %q", got)
	}
	if got := read(); got != "📊 Business Intelligence Memo 📊\n\nKey Insights Discovered:\n\n- Apples sell best" {
		t.Errorf("memo of one insight = %q", got)
	}
	s.ok("append_insight", m{"insight": "Pears do not"})
	want := "📊 Business Intelligence Memo 📊\n\nKey Insights Discovered:\n\n- Apples sell best\n- Pears do not\nSummary:\nAnalysis has revealed 2 key business insights that suggest opportunities for strategic optimization and growth."
	if got := read(); got != want {
		t.Errorf("memo of two insights = %q", got)
	}
	s.refused("append_insight", m{"insight": strings.Repeat("x", sqlite.DefaultMaxInsightBytes+1)})

	p, err := s.sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp-demo", Arguments: map[string]string{"topic": "retail sales"}})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Messages[0].Content.(*mcp.TextContent).Text
	if p.Description != "Demo template for retail sales" || p.Messages[0].Role != mcp.RoleUser ||
		!strings.HasPrefix(text, "The assistants goal is to walkthrough") || !strings.Contains(text, "The topic is: retail sales.") || strings.Contains(text, "{topic}") ||
		!strings.HasSuffix(text, `Let's get started! 🚀"`) {
		t.Errorf("mcp-demo prompt: %q ... %q", p.Description, text)
	}
	if _, err := s.sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp-demo"}); err == nil {
		t.Error("mcp-demo without a topic did not fail")
	}
}
