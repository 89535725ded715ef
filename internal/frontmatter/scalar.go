package frontmatter

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// number is a JSON number, as its text.
type number string

// unquote decodes a quoted scalar s, quotes included, which may span
// lines (joined by \n); l is the line it begins on.
func unquote(s string, l *line) (string, error) {
	q := s[0]
	body := s[1 : len(s)-1]
	var b []byte
	keep := 0 // b[:keep] may not be trimmed: escaped characters
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\n':
			// Folding: the white space around the break goes; the break
			// becomes a space, or, after empty lines, one break each.
			for len(b) > keep && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
				b = b[:len(b)-1]
			}
			i, b = foldBreak(body, i, b)
		case q == '\'' && c == '\'':
			b = append(b, '\'') // '' is a quote
			i++
			keep = len(b)
		case q == '"' && c == '\\':
			i++
			if body[i] == '\n' { // an escaped break joins the lines
				for i+1 < len(body) && (body[i+1] == ' ' || body[i+1] == '\t') {
					i++
				}
				keep = len(b)
				continue
			}
			var err error
			if b, i, err = escape(body, i, b, l); err != nil {
				return "", err
			}
			keep = len(b)
		default:
			b = append(b, c)
		}
	}
	return string(b), nil
}

// foldBreak folds the line break at body[i]: it skips the empty lines
// after it and the indentation of the next line, and writes a space for
// no empty line or a break for each. It returns the index of the last
// byte it passed.
func foldBreak(body string, i int, b []byte) (int, []byte) {
	breaks := 0
	for {
		j := i + 1
		for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
			j++
		}
		if j < len(body) && body[j] == '\n' {
			breaks++
			i = j
			continue
		}
		if breaks == 0 {
			b = append(b, ' ')
		} else {
			b = append(b, strings.Repeat("\n", breaks)...)
		}
		return j - 1, b
	}
}

// escapes maps the one-character escapes of double-quoted scalars to
// what they stand for.
var escapes = map[byte]string{
	'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
	'r': "\r", 'e': "\x1b", ' ': " ", '"': `"`, '/': "/", '\\': `\`,
	'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029",
}

// escape decodes the escape whose letter is body[i], appending it to b;
// it returns the index of its last byte.
func escape(body string, i int, b []byte, l *line) ([]byte, int, error) {
	e := body[i]
	if s, ok := escapes[e]; ok {
		return append(b, s...), i, nil
	}
	var n int
	switch e {
	case 'x':
		n = 2
	case 'u':
		n = 4
	case 'U':
		n = 8
	default:
		return nil, 0, errorf(l, "the escape \\%c is not a YAML escape", e)
	}
	r, ok := hexRune(body, i+1, n)
	if !ok {
		return nil, 0, errorf(l, "the escape \\%c needs %d hexadecimal digits", e, n)
	}
	i += n
	if r >= 0xD800 && r <= 0xDBFF && e == 'u' {
		// A UTF-16 surrogate pair, as JSON writes characters beyond the
		// basic plane.
		lo, ok := rune(0), false
		if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
			lo, ok = hexRune(body, i+3, 4)
		}
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return nil, 0, errorf(l, "the escape \\u%04X is half of a surrogate pair", r)
		}
		r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
		i += 6
	}
	if !utf8.ValidRune(r) {
		return nil, 0, errorf(l, "the escape \\%c%X is not a Unicode character", e, r)
	}
	return utf8.AppendRune(b, r), i, nil
}

// hexRune reads n hexadecimal digits of s from i.
func hexRune(s string, i, n int) (rune, bool) {
	if i+n > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s[i:i+n], 16, 32)
	return rune(v), err == nil && !strings.ContainsAny(s[i:i+n], "+-_")
}

// unrepresentable is a plain scalar that YAML reads as a number JSON
// cannot write: an infinity, NaN, or a float beyond float64.
type unrepresentable string

// resolve returns the value of a plain scalar under the YAML 1.2 core
// schema: nil, a bool, a number, or the string itself; or unrepresentable.
func resolve(s string) any {
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
		return unrepresentable(s)
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if n, ok := integer(s); ok {
		return n
	}
	if n, ok, valid := float(s); ok {
		return n
	} else if !valid {
		return unrepresentable(s)
	}
	return s
}

// maxDigits bounds the digits of an octal or hexadecimal integer.
const maxDigits = 64

// integer reads a core-schema integer: decimal with an optional sign,
// 0o octal or 0x hexadecimal. Decimal integers keep their digits, so that
// none is too large.
func integer(s string) (number, bool) {
	switch {
	case strings.HasPrefix(s, "0o"):
		return based(s[2:], 8)
	case strings.HasPrefix(s, "0x"):
		return based(s[2:], 16)
	}
	sign, digits := "", s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		if digits[0] == '-' {
			sign = "-"
		}
		digits = digits[1:]
	}
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	return number(sign + digits), true
}

// based reads the digits of an octal or hexadecimal integer.
func based(digits string, base int) (number, bool) {
	if digits == "" || len(digits) > maxDigits {
		return "", false
	}
	valid := "01234567"
	if base == 16 {
		valid = "0123456789abcdefABCDEF"
	}
	if strings.Trim(digits, valid) != "" {
		return "", false
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return "", false
	}
	return number(n.String()), true
}

// float reads a core-schema float. It reports valid false for one too
// large for a float64, which JSON cannot write.
func float(s string) (n number, ok, valid bool) {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 || t == "" {
		return "", false, true
	}
	mant, exp, hasExp := strings.Cut(t, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(t, "E")
	}
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if len(exp)-len(e) > 1 || e == "" || strings.Trim(e, "0123456789") != "" {
			return "", false, true
		}
	}
	whole, frac, dot := strings.Cut(mant, ".")
	if strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" ||
		whole == "" && frac == "" || !dot && !hasExp || whole == "" && !dot {
		return "", false, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false, false
	}
	return number(strconv.FormatFloat(f, 'g', -1, 64)), true, true
}
