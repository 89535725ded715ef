package sqlite_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"
	"github.com/mcpwire/mcpwire/transport/memory"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sqlite3 runs the sqlite3 command on the database and returns its
// standard output; the test fails if the command does.
func sqlite3(t testing.TB, db string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sqlite3", append([]string{"-bail", db}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("sqlite3 %v: %v\n%s", args, err, stderr)
	}
	return string(out)
}

// fixture is the database the tests query, made by the sqlite3 command.
const fixture = `
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, qty INTEGER DEFAULT 0, note TEXT, added DATE);
INSERT INTO items VALUES
  (1, 'apple', 0.5, 10, NULL, '2024-01-15'),
  (2, 'pear', 1.25, 0, 'ripe', '2024-02-01'),
  (3, 'ünïcødé ✓', 3.0, 7, 'quote '' and "double"', '2024-03-10'),
  (4, 'tab	and
newline', -2.5e10, 9007199254740993, '', NULL),
  (5, 'big', 1e300, -42, 'x', '2024-12-31 23:59:59');
CREATE INDEX items_name ON items (name);
CREATE TABLE orders (id INTEGER PRIMARY KEY, item INTEGER REFERENCES items(id), n INTEGER);
INSERT INTO orders VALUES (1, 1, 3), (2, 1, 4), (3, 3, 1), (4, 5, 2);
CREATE TABLE blobs (k TEXT, v BLOB);
INSERT INTO blobs VALUES ('a', x'00ff41'), ('b', x'');
CREATE VIEW totals AS SELECT item, sum(n) AS total FROM orders GROUP BY item;
`

// newDB writes the fixture into a new database file and returns its path.
func newDB(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.db")
	sqlite3(t, p, fixture)
	return p
}

// fileSum is the SHA-256 of the file's bytes, "" when it does not exist.
func fileSum(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return string(s[:])
}

type session struct {
	t    testing.TB
	sess *client.Session
	db   *sqlite.Database
}

func serve(t testing.TB, path string, opts *sqlite.Options) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	db, err := sqlite.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sqlite.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	sess, err := client.New(mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		srv.Close()
		db.Close()
	})
	return &session{t: t, sess: sess, db: db}
}

func (s *session) result(name string, args any) *mcp.CallToolResult {
	s.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		out = append(out, c.(*mcp.TextContent).Text)
	}
	return out
}

func (s *session) ok(name string, args any) *mcp.CallToolResult {
	s.t.Helper()
	res := s.result(name, args)
	if res.IsError {
		s.t.Fatalf("%s %v: unexpected error result: %s", name, args, texts(res))
	}
	return res
}

func (s *session) refused(name string, args any) string {
	s.t.Helper()
	res := s.result(name, args)
	if !res.IsError {
		s.t.Fatalf("%s %v: expected an error result, got %s", name, args, texts(res))
	}
	return strings.Join(texts(res), "\n")
}

type m = map[string]any

// rows is the structured result of a rows tool.
type rows struct {
	Columns   []string         `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	Truncated bool             `json:"truncated"`
}

func decodeRows(t testing.TB, res *mcp.CallToolResult) rows {
	t.Helper()
	var r rows
	d := json.NewDecoder(strings.NewReader(string(res.StructuredContent)))
	d.UseNumber()
	if err := d.Decode(&r); err != nil {
		t.Fatalf("structured content %s: %v", res.StructuredContent, err)
	}
	return r
}
