package filesystem

// The official server is written in TypeScript; its result texts come out
// of JavaScript's own formatting (JSON.stringify, Date.prototype.toString,
// Number.prototype.toFixed, String.prototype.padEnd, localeCompare, the
// UTF-8 decoder of Node's Buffer, url.pathToFileURL). This file does the
// same in Go, so that the texts agree byte for byte.

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// decodeUTF8 decodes b as the WHATWG UTF-8 decoder does (Node's
// Buffer.toString): each maximal invalid subsequence becomes one U+FFFD.
func decodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			sb.WriteByte(c)
			i++
			continue
		}
		n, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			n = 1
		case c == 0xE0:
			n, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			n = 2
		case c == 0xED:
			n, hi = 2, 0x9F
		case c == 0xF0:
			n, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			n = 3
		case c == 0xF4:
			n, hi = 3, 0x8F
		default:
			sb.WriteRune(utf8.RuneError)
			i++
			continue
		}
		j, ok := i+1, true
		for k := 0; k < n; k++ {
			l, h := byte(0x80), byte(0xBF)
			if k == 0 {
				l, h = lo, hi
			}
			if j >= len(b) || b[j] < l || b[j] > h {
				ok = false
				break
			}
			j++
		}
		if ok {
			sb.Write(b[i:j])
		} else {
			sb.WriteRune(utf8.RuneError)
		}
		i = j
	}
	return sb.String()
}

// jsString is a name as JavaScript sees it: Node decodes file names as
// UTF-8, replacing what is not.
func jsString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return decodeUTF8([]byte(s))
}

// appendJSONString appends s (valid UTF-8) quoted as JSON.stringify
// quotes it: only ", \ and control characters are escaped (\b \f \n \r
// \t, others as \u00xx).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hex[c>>4], hex[c&0xF])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// writeJSONString writes s as appendJSONString appends it.
func writeJSONString(sb *strings.Builder, s string) {
	var buf [64]byte
	if len(s) <= 40 {
		sb.Write(appendJSONString(buf[:0], s))
		return
	}
	sb.Write(appendJSONString(make([]byte, 0, len(s)+8), s))
}

// utf16Len is the length of s in UTF-16 code units, JavaScript's length.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// padEnd and padStart pad s with spaces to n UTF-16 code units.
func padEnd(s string, n int) string {
	if l := utf16Len(s); l < n {
		return s + strings.Repeat(" ", n-l)
	}
	return s
}

func padStart(s string, n int) string {
	if l := utf16Len(s); l < n {
		return strings.Repeat(" ", n-l) + s
	}
	return s
}

// isJSSpace reports whether JavaScript's trim() and \s count r as white
// space: WhiteSpace and LineTerminator of ECMAScript.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return r > 0xFF && unicode.Is(unicode.Zs, r)
}

func jsTrim(s string) string      { return strings.TrimFunc(s, isJSSpace) }
func jsTrimStart(s string) string { return strings.TrimLeftFunc(s, isJSSpace) }

// jsIndent is what /^\s*/ matches at the start of s.
func jsIndent(s string) string { return s[:len(s)-len(jsTrimStart(s))] }

// formatSize writes a byte count as the official server does: B, KB, MB,
// GB or TB with two decimals, rounded half up as toFixed rounds.
func formatSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n <= 0 {
		return "0 B"
	}
	i := int(math.Floor(math.Log(float64(n)) / math.Log(1024)))
	if i <= 0 {
		return strconv.FormatInt(n, 10) + " B"
	}
	i = min(i, len(units)-1)
	// n / 1024^i is exact in binary; toFixed(2) rounds it half up.
	div := new(big.Int).Lsh(big.NewInt(1), uint(10*i))
	hundredths := new(big.Int).Mul(big.NewInt(n), big.NewInt(100))
	hundredths.Add(hundredths, new(big.Int).Rsh(div, 1))
	hundredths.Quo(hundredths, div)
	q, r := new(big.Int).QuoRem(hundredths, big.NewInt(100), new(big.Int))
	frac := r.String()
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return q.String() + "." + frac + " " + units[i]
}

// dateString formats t as Date.prototype.toString does, for example
// "Tue Sep 16 2025 10:11:12 GMT+0200 (CEST)". JavaScript names the zone in
// words from the ICU data ("Central European Summer Time"), which Go does
// not have: the abbreviation stands in, except for UTC.
func dateString(t time.Time) string {
	t = t.Local()
	name, _ := t.Zone()
	if name == "UTC" {
		name = "Coordinated Universal Time"
	}
	return t.Format("Mon Jan 02 2006 15:04:05 GMT-0700") + " (" + name + ")"
}

// fileURL is url.pathToFileURL(p).href of Node 22, for an absolute path.
func fileURL(p string) string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	sb.WriteString("file://")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!$&'()*+,-./:;=@_", c) >= 0 {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&0xF])
	}
	return sb.String()
}
