package full

import (
	"strings"
	"testing"
)

func TestHugeNumber(t *testing.T) {
	long := strings.Repeat("1", 1001)
	for _, tc := range []struct {
		instance string
		want     string // the number found, or ""
	}{
		{`{"a":[1,2.5,-3e10,1e1000]}`, ""},
		{`{"a":1e1001}`, "1e1001"},
		{`[1E-2000,2]`, "1E-2000"},
		{`{"n":` + long + `}`, long},
		{`{"n":0.` + long[2:] + `e5}`, ""}, // 1000 digits, the limit
		{`"` + long + `"`, ""},
		{`{"` + long + `\"` + long + `":1}`, ""},
		{`["\\",` + long + `]`, long},
	} {
		start, end := hugeNumber([]byte(tc.instance))
		got := ""
		if start >= 0 {
			got = tc.instance[start:end]
		}
		if got != tc.want {
			t.Errorf("hugeNumber(%.30s…) = %.30s, want %.30s", tc.instance, got, tc.want)
		}
	}
}
