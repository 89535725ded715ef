package sqlite

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// A cell receives a column's value as the driver gives it (int64,
// float64, string, []byte, time.Time or nil). database/sql passes a value
// to a Scanner as it is, where scanning into an *any copies a []byte
// first; a blob's bytes are valid until the next row.
type cell struct{ v any }

// Scan implements sql.Scanner.
func (c *cell) Scan(v any) error {
	c.v = v
	return nil
}

// appendRow appends one row to b as a JSON object whose members are the
// columns (keys, already JSON strings) in order, and reports whether the
// object fits in max bytes. It stops as soon as it passes max, and does
// not start on a value that cannot fit: a value too long for the answer
// is never encoded whole.
func appendRow(b []byte, keys [][]byte, cells []cell, max int) ([]byte, bool) {
	b = append(b, '{')
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, keys[i]...)
		b = append(b, ':')
		if len(b)+minLen(c.v)+1 > max {
			return b, false
		}
		var ok bool
		if b, ok = appendValue(b, c.v, max); !ok {
			return b, false
		}
	}
	b = append(b, '}')
	return b, len(b) <= max
}

// rowLen returns the fewest bytes appendRow writes for the row, and
// about as many as it will write: exact for strings without escapes and
// blobs, an upper bound for numbers.
func rowLen(keys [][]byte, cells []cell) (least, likely int) {
	least, likely = 2, 2
	for i, c := range cells {
		n := minLen(c.v)
		least += len(keys[i]) + 2 + n
		likely += len(keys[i]) + 2 + max(n, 24)
	}
	return least, likely
}

// minLen is the fewest bytes appendValue writes for v.
func minLen(v any) int {
	switch v := v.(type) {
	case string:
		return len(v) + 2
	case []byte:
		return 2*len(v) + 5
	}
	return 1
}

// appendValue appends an SQLite value as JSON: NULL as null, integers and
// reals as numbers (infinities as the strings "Infinity" and
// "-Infinity", which JSON numbers cannot hold), text as a string, a blob
// as the string of its SQL literal (x'00ff'), and a time the driver
// parsed from a DATE, DATETIME or TIMESTAMP column back as SQLite text.
// It reports false, having stopped, once b passes max bytes.
func appendValue(b []byte, v any, max int) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		b = append(b, "null"...)
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case float64:
		switch {
		case math.IsInf(v, 1):
			b = append(b, `"Infinity"`...)
		case math.IsInf(v, -1):
			b = append(b, `"-Infinity"`...)
		case math.IsNaN(v):
			b = append(b, "null"...)
		default:
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	case string:
		return appendString(b, v, max)
	case []byte:
		b = append(hex.AppendEncode(append(b, `"x'`...), v), `'"`...)
	case time.Time:
		return appendString(b, sqliteTime(v), max)
	default:
		return appendString(b, fmt.Sprint(v), max)
	}
	return b, len(b) <= max
}

// htmlSafe marks the bytes that encoding/json writes as themselves in a
// string: printable ASCII other than '"', '\\', and '<', '>', '&' (which
// it escapes so that the JSON is safe in HTML).
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		switch c {
		case '"', '\\', '<', '>', '&':
		default:
			t[c] = true
		}
	}
	return
}()

const hexDigits = "0123456789abcdef"

// appendString appends s to b as a JSON string, as json.Marshal writes it
// (the rows were written so before: TestAppendStringIsMarshal), and
// reports false, having stopped, once b passes max bytes: escaping can
// make a string six times longer, so a string that fits as it is may
// still not fit, and is not escaped whole to find out.
func appendString(b []byte, s string, max int) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(append(b, s[start:i]...), `\ufffd`...)
			case r == '\u2028' || r == '\u2029':
				b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				i += size
				continue
			}
			i += size
		}
		start = i
		if len(b) > max {
			return b, false
		}
	}
	b = append(append(b, s[start:]...), '"')
	return b, len(b) <= max
}

// sqliteTime writes a time in the form SQLite's date functions use: the
// date alone at midnight UTC, else date and time, with fractional seconds
// and a zone only when there are some.
func sqliteTime(t time.Time) string {
	_, off := t.Zone()
	switch {
	case off == 0 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0:
		return t.Format(time.DateOnly)
	case off == 0:
		return t.Format("2006-01-02 15:04:05.999999999")
	}
	return t.Format("2006-01-02 15:04:05.999999999-07:00")
}

// columnKeys returns the column names as JSON strings.
func columnKeys(names []string) [][]byte {
	keys := make([][]byte, len(names))
	for i, n := range names {
		keys[i], _ = json.Marshal(n)
	}
	return keys
}
