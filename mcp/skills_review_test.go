package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFrontmatterNumbersCompareInBoundedTime: a server controls the
// numbers of an entry's frontmatter; comparing them with the file's must
// not cost what a huge exponent costs in exact rational arithmetic.
func TestFrontmatterNumbersCompareInBoundedTime(t *testing.T) {
	// Equal values written differently, then one that differs: every
	// pair must be compared.
	big := "[" + strings.Repeat("1e999999,", 100) + "1]"
	small := "[" + strings.Repeat("10e999998,", 100) + "2]"
	entry := SkillFrontmatter{"x": json.RawMessage(big)}
	file := SkillFrontmatter{"x": json.RawMessage(small)}
	done := make(chan []string, 1)
	go func() { done <- file.Differences(entry) }()
	select {
	case d := <-done:
		if len(d) != 1 || d[0] != "x" {
			t.Errorf("Differences = %v", d)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("comparing 100 pairs of numbers took more than 2s")
	}
	// Numbers still compare by value, exactly.
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"1", "1.0", true}, {"100", "1e2", true}, {"0.5", "5E-1", true}, {"-0", "0", true}, {"1e999999", "10e999998", true},
		{"9007199254740993", "9007199254740992", false}, {"1", "-1", false}, {"1e999999", "1e999998", false}, {"0.1", "0.10000000000000001", false},
	} {
		if got := sameJSON(json.RawMessage(c.a), json.RawMessage(c.b)); got != c.same {
			t.Errorf("sameJSON(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
