//go:build linux

package sqlite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// envWriteChild makes the test binary run one write_query (the query in
// the variable, on the database named by envWriteDB) and print its
// result, so that the parent sees the peak RSS of that one call.
const (
	envWriteChild = "MCPWIRE_SQLITE_WRITE_QUERY"
	envWriteDB    = "MCPWIRE_SQLITE_WRITE_DB"
)

// TestWriteChild is the child of TestHugeValueIsNotWritten: it runs only
// with envWriteChild set.
func TestWriteChild(t *testing.T) {
	q := os.Getenv(envWriteChild)
	if q == "" {
		t.Skip("the child of TestHugeValueIsNotWritten")
	}
	s := serve(t, os.Getenv(envWriteDB), nil)
	res := s.result("write_query", m{"query": q})
	out, _ := json.Marshal(map[string]any{"isError": res.IsError, "text": strings.Join(texts(res), "\n")})
	fmt.Printf("RESULT %s\n", out)
}

// written is the outcome of one write_query run in a child process.
type written struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
	RSS     int64  // the child's peak RSS, bytes
	Grew    int64  // how much the database file grew
}

// writeInChild runs write_query q on the database db in a child process.
func writeInChild(t *testing.T, db, q string) written {
	t.Helper()
	before, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envWriteChild+"="+q, envWriteDB+"="+db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s%s", q, err, stdout.String(), stderr.String())
	}
	_, line, ok := strings.Cut(stdout.String(), "RESULT ")
	line, _, _ = strings.Cut(line, "\n")
	var w written
	if err := json.Unmarshal([]byte(line), &w); !ok || err != nil {
		t.Fatalf("%s: the child printed %q (%v)", q, stdout.String(), err)
	}
	w.RSS = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	after, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	w.Grew = after.Size() - before.Size()
	return w
}

// TestHugeValueIsNotWritten: reads were bounded (SQLITE_LIMIT_LENGTH on
// the read connections), writes were not: a write_query could make a
// value of up to SQLite's own 1e9 bytes (randomblob, zeroblob, printf,
// replace), held in memory whole (and copied again into its row) before
// SQLite could be interrupted, and could grow the file without bound. A
// call's values are now bounded (MaxWriteValueBytes, SQLITE_LIMIT_LENGTH
// on the write connection too) and so is the file's growth per call
// (MaxGrowthBytes, SQLite's max_page_count): past either the call is an
// error result, rolled back, having made no such value.
func TestHugeValueIsNotWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes making hundreds of megabytes on the old code")
	}
	db := newDB(t)
	base := writeInChild(t, db, "UPDATE items SET qty = qty + 1 WHERE id = 1")
	if base.IsError {
		t.Fatalf("a small write: %s", base.Text)
	}
	t.Logf("a small write: peak RSS %d MiB", base.RSS>>20)
	for _, tc := range []struct {
		q, says string
	}{
		{"INSERT INTO blobs VALUES ('r', randomblob(200000000))", "too big"},
		{"INSERT INTO blobs VALUES ('z', zeroblob(300000000))", "too big"},
		{"UPDATE items SET note = printf('%.*c', 200000000, 'x') WHERE id = 1", "too big"},
		{"UPDATE items SET note = replace(hex(zeroblob(50000000)), '0', 'xx') WHERE id = 2", "too big"},
		// 40 values of 8 MB, each allowed: 320 MB of file
		{"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO blobs SELECT 'g' || i, zeroblob(8000000) FROM n", "grow"},
	} {
		w := writeInChild(t, db, tc.q)
		t.Logf("%s: error %v, peak RSS %d MiB, the file grew %d MiB: %.300s", tc.q, w.IsError, w.RSS>>20, w.Grew>>20, w.Text)
		if !w.IsError || !strings.Contains(w.Text, tc.says) {
			t.Errorf("%s: error %v, %.300s; want an error result that says %q", tc.q, w.IsError, w.Text, tc.says)
		}
		if w.RSS > base.RSS+64<<20 {
			t.Errorf("%s: peak RSS %d MiB, %d MiB more than a small write's", tc.q, w.RSS>>20, (w.RSS-base.RSS)>>20)
		}
		if w.Grew > 1<<20 {
			t.Errorf("%s: the file grew by %d MiB", tc.q, w.Grew>>20)
		}
	}
	if got := sqlite3(t, db, "SELECT count(*) FROM blobs"); strings.TrimSpace(got) != "2" {
		t.Errorf("the blobs table has %s rows, want the 2 it had", got)
	}
}
