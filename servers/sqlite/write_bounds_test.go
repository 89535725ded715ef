package sqlite_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// TestWriteBoundsOptions: the bounds of a write call are options: a value
// up to MaxWriteValueBytes is written, a longer one refused; the file may
// grow by MaxGrowthBytes in a call, and the next call may grow it again.
func TestWriteBoundsOptions(t *testing.T) {
	db := newDB(t)
	s := serve(t, db, &sqlite.Options{MaxWriteValueBytes: 2 << 20, MaxGrowthBytes: 4 << 20})
	s.ok("write_query", m{"query": "INSERT INTO blobs VALUES ('ok', zeroblob(2000000))"})
	if got := s.refused("write_query", m{"query": "INSERT INTO blobs VALUES ('no', zeroblob(2200000))"}); !strings.Contains(got, "2097152") {
		t.Errorf("a value past MaxWriteValueBytes: %s", got)
	}
	if got := s.refused("create_table", m{"query": "CREATE TABLE big AS SELECT zeroblob(2200000) AS v"}); !strings.Contains(got, "too big") {
		t.Errorf("create_table making a value past MaxWriteValueBytes: %s", got)
	}
	if got := s.refused("write_query", m{"query": "INSERT INTO blobs VALUES ('a', zeroblob(1500000)), ('b', zeroblob(1500000)), ('c', zeroblob(1500000))"}); !strings.Contains(got, "4194304") {
		t.Errorf("a call growing the file past MaxGrowthBytes: %s", got)
	}
	for range 3 { // each call may grow the file anew
		s.ok("write_query", m{"query": "INSERT INTO blobs VALUES ('d', zeroblob(1500000)), ('e', zeroblob(1500000))"})
	}
	if got := s.refused("write_query", m{"query": "PRAGMA max_page_count = 1000000000"}); !strings.Contains(got, "max_page_count is refused") {
		t.Errorf("a call lifting its own bound: %s", got)
	}
	for _, o := range []sqlite.Options{{MaxWriteValueBytes: -1}, {MaxWriteValueBytes: 1_000_000_001}, {MaxGrowthBytes: -1}} {
		if _, err := sqlite.Open(t.Context(), db, &o); err == nil {
			t.Errorf("Open with %+v succeeded", o)
		}
	}
}
