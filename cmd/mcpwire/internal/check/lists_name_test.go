package check

import (
	"regexp"
	"strings"
	"testing"
)

// TestToolName: the loop accepts what the specification's pattern does.
func TestToolName(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)
	for _, s := range []string{"", "a", "get_weather", "a.b-c_D9", "with space", "é", "a/b", "x\n", strings.Repeat("a", 128), strings.Repeat("a", 129), "ab\x00"} {
		if got, want := toolName(s), re.MatchString(s); got != want {
			t.Errorf("toolName(%q) = %v, want %v", s, got, want)
		}
	}
}
