package sqlite

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestAppendStringIsMarshal: the rows' strings are written as
// json.Marshal wrote them before the writer was bounded: every byte,
// invalid UTF-8, U+2028 and U+2029, and HTML's <, >, &.
func TestAppendStringIsMarshal(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	cases := []string{
		"", "plain", string(all), "a\u2028b\u2029c", "<script>&amp;</script>",
		"\xff\xfe", "é\x80", "\xe2\x80", "ünïcødé ✓ 😀", "\x00\x01\x1f\x7f", `"\/\\`,
		strings.Repeat("\x00", 1000), strings.Repeat("ab\n", 1000),
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		got, ok := appendString(nil, s, len(want))
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, %v; json.Marshal: %s", s, got, ok, want)
		}
		// one byte less does not fit, and the writer stops near it
		if got, ok := appendString(nil, s, len(want)-1); ok || len(got) > len(want)+6 {
			t.Errorf("appendString(%q) within %d bytes: %v, wrote %d", s, len(want)-1, ok, len(got))
		}
	}
}

// FuzzAppendString checks appendString against json.Marshal.
func FuzzAppendString(f *testing.F) {
	f.Add("a\u2028<\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got, ok := appendString(nil, s, len(want)); !ok || !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, %v; json.Marshal: %s", s, got, ok, want)
		}
	})
}

// TestAppendRowStopsEarly: a row stops at its bound without encoding the
// value that passes it: a blob is measured before it is written.
func TestAppendRowStopsEarly(t *testing.T) {
	keys := columnKeys([]string{"n", "b"})
	big := make([]byte, 1<<20)
	b, ok := appendRow(nil, keys, []cell{{int64(1)}, {big}}, 1000)
	if ok || len(b) > 1000 {
		t.Errorf("a row with a 1 MiB blob in 1000 bytes: %v, wrote %d", ok, len(b))
	}
	b, ok = appendRow(nil, keys, []cell{{int64(1)}, {[]byte{0, 0xff}}}, 1000)
	if !ok || string(b) != `{"n":1,"b":"x'00ff'"}` {
		t.Errorf("a small row: %v %s", ok, b)
	}
	if _, ok := appendRow(nil, keys, []cell{{int64(1)}, {[]byte{0, 0xff}}}, len(`{"n":1,"b":"x'00ff'"}`)-1); ok {
		t.Error("a row one byte too long fits")
	}
}
