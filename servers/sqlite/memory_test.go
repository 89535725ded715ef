package sqlite_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHugeValueIsNotReadWhole: SELECT zeroblob(200000000) was read whole,
// copied and hex-encoded (about 1.5 GiB allocated, and as much again by
// SQLite) for an answer cut to 1 MiB, on each of the read connections at
// once. A value longer than the server reads (MaxValueBytes, the size of
// an answer by default) is refused by SQLite before it is made, and one
// that is read but cannot fit the answer is copied once and not encoded.
func TestHugeValueIsNotReadWhole(t *testing.T) {
	db := newDB(t)
	for _, ro := range []bool{false, true} {
		s := serve(t, db, &sqlite.Options{ReadOnly: ro})
		s.ok("read_query", m{"query": "SELECT count(*) FROM items"})
		for _, tc := range []struct {
			q     string
			limit uint64 // bytes the call may allocate, client and server
		}{
			{"SELECT zeroblob(200000000)", 256 << 10},
			{"SELECT randomblob(200000000)", 256 << 10},
			{"SELECT printf('%.*c', 200000000, 'x')", 256 << 10},
			{"SELECT 1 AS n, zeroblob(1000000) AS big", 3 << 19},               // read (1 MB), too long to answer
			{"SELECT 1 AS n, CAST(zeroblob(1000000) AS TEXT) AS big", 2 << 20}, // 1 MB of NULs, 6 MB as JSON
		} {
			var answer string
			n := allocated(func() {
				res := s.result("read_query", m{"query": tc.q})
				answer = strings.Join(texts(res), "\n")
				if !res.IsError && !decodeRows(t, res).Truncated {
					t.Errorf("read-only=%v %s: neither refused nor cut: %.200s", ro, tc.q, answer)
				}
			})
			t.Logf("read-only=%v %s: %d KiB", ro, tc.q, n>>10)
			if n > tc.limit {
				t.Errorf("read-only=%v %s: allocated %d KiB (limit %d KiB); answered %.200s", ro, tc.q, n>>10, tc.limit>>10, answer)
			}
		}
	}
	// a value longer than the answer may hold, in a later row, cuts the
	// result there with a note, as a long row does
	s := serve(t, db, nil)
	res := s.ok("read_query", m{"query": "SELECT id, CASE id WHEN 3 THEN zeroblob(2000000) END AS v FROM items ORDER BY id"})
	if r := decodeRows(t, res); len(r.Rows) != 2 || !r.Truncated || len(texts(res)) != 2 {
		t.Errorf("a long value in row 3: %d rows, truncated %v, %q", len(r.Rows), r.Truncated, texts(res))
	}
}

// TestMaxValueBytes: the bound on one value is an option, within what
// SQLite can hold; a value up to it is read.
func TestMaxValueBytes(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, &sqlite.Options{MaxBytes: 1 << 20, MaxValueBytes: 3 << 20})
	res := s.ok("read_query", m{"query": "SELECT length(zeroblob(2500000)) AS n"}) // made, never read
	if got := decodeRows(t, res).Rows[0]["n"]; fmt.Sprint(got) != "2500000" {
		t.Errorf("length(zeroblob(2500000)) = %v", got)
	}
	if got := s.refused("read_query", m{"query": "SELECT length(zeroblob(3500000))"}); !strings.Contains(got, "3145728") {
		t.Errorf("a value past MaxValueBytes: %s", got)
	}
	for _, v := range []int{-1, 1_000_000_001, 1 << 40} {
		if _, err := sqlite.Open(t.Context(), db, &sqlite.Options{MaxValueBytes: v}); err == nil {
			t.Errorf("Open with MaxValueBytes %d succeeded", v)
		}
	}
}
