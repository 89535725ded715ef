package jsonschema

import (
	"math/big"
	"strconv"
)

// decimal is an exact JSON number: 0.digits × 10^exp, negative if neg.
// digits has no leading or trailing zeros; zero has no digits. Numbers are
// compared exactly, so 1, 1.0 and 10e-1 are equal and precision is never
// lost to float64, whatever the magnitude.
type decimal struct {
	neg    bool
	digits []byte
	exp    int
}

// maxExp saturates exponents so that arithmetic on them cannot overflow.
const maxExp = 1 << 40

// parseDecimal reads the well-formed JSON number num. Its digits are
// appended to buf, which is returned; the decimal refers to that storage.
func parseDecimal(num, buf []byte) (decimal, []byte) {
	var d decimal
	i := 0
	if num[0] == '-' {
		d.neg = true
		i++
	}
	start := len(buf)
	intDigits := 0
	for ; i < len(num) && num[i] >= '0' && num[i] <= '9'; i++ {
		buf = append(buf, num[i])
		intDigits++
	}
	if i < len(num) && num[i] == '.' {
		for i++; i < len(num) && num[i] >= '0' && num[i] <= '9'; i++ {
			buf = append(buf, num[i])
		}
	}
	e := 0
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		i++
		eneg := false
		if num[i] == '+' || num[i] == '-' {
			eneg = num[i] == '-'
			i++
		}
		for ; i < len(num); i++ {
			if e < maxExp {
				e = e*10 + int(num[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	digits := buf[start:]
	exp := intDigits
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
		exp--
	}
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return decimal{}, buf
	}
	d.digits = digits
	d.exp = exp + e
	return d, buf
}

func (d decimal) isZero() bool { return len(d.digits) == 0 }

// isInteger reports whether d has no fractional part.
func (d decimal) isInteger() bool { return d.isZero() || d.exp >= len(d.digits) }

// cmpDecimal returns -1, 0 or +1 as a is less than, equal to or greater
// than b.
func cmpDecimal(a, b decimal) int {
	switch {
	case a.isZero() && b.isZero():
		return 0
	case a.isZero():
		return sign(!b.neg)
	case b.isZero():
		return sign(a.neg)
	case a.neg != b.neg:
		return sign(a.neg)
	}
	// Same sign, both non-zero: compare magnitudes, then flip if negative.
	m := 0
	switch {
	case a.exp != b.exp:
		m = sign(a.exp < b.exp)
	default:
		n := min(len(a.digits), len(b.digits))
		for i := 0; i < n && m == 0; i++ {
			if a.digits[i] != b.digits[i] {
				m = sign(a.digits[i] < b.digits[i])
			}
		}
		if m == 0 && len(a.digits) != len(b.digits) {
			m = sign(len(a.digits) < len(b.digits))
		}
	}
	if a.neg {
		m = -m
	}
	return m
}

// sign returns -1 if less, else +1.
func sign(less bool) int {
	if less {
		return -1
	}
	return 1
}

// appendCanonical appends a form of d that is equal for equal numbers.
func (d decimal) appendCanonical(buf []byte) []byte {
	if d.isZero() {
		return append(buf, '0')
	}
	if d.neg {
		buf = append(buf, '-')
	}
	buf = append(buf, d.digits...)
	buf = append(buf, 'e')
	return strconv.AppendInt(buf, int64(d.exp), 10)
}

// maxMultipleDigits bounds the digits multipleOf works on, so that a
// hostile number cannot make it do unbounded big-integer arithmetic.
const maxMultipleDigits = 4096

// isMultiple reports whether x is an integer multiple of m (m > 0). ok is
// false when x has too many digits to decide.
func isMultiple(x, m decimal) (multiple, ok bool) {
	if x.isZero() {
		return true, true
	}
	// x = X·10^a and m = M·10^b with X and M integers.
	a := x.exp - len(x.digits)
	b := m.exp - len(m.digits)
	if len(x.digits) > maxMultipleDigits {
		return false, false
	}
	if len(x.digits) <= 18 && len(m.digits) <= 18 && a >= b && a-b <= 18-len(x.digits) {
		xi := parseUint(x.digits)
		for k := a - b; k > 0; k-- {
			xi *= 10
		}
		return xi%parseUint(m.digits) == 0, true
	}
	X := new(big.Int)
	X.SetString(string(x.digits), 10)
	M := new(big.Int)
	M.SetString(string(m.digits), 10)
	switch k := a - b; {
	case k >= 0:
		// M divides X·10^k. Only the factors 2 and 5 of 10^k can help, and
		// M has fewer than 4 of each per digit, so k can be capped.
		k = min(k, 4*len(m.digits)+4)
		X.Mul(X, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	default:
		// M·10^-k divides X: impossible once 10^-k alone exceeds X.
		if -k > len(x.digits) {
			return false, true
		}
		M.Mul(M, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-k)), nil))
	}
	return new(big.Int).Rem(X, M).Sign() == 0, true
}

func parseUint(digits []byte) uint64 {
	var n uint64
	for _, c := range digits {
		n = n*10 + uint64(c-'0')
	}
	return n
}
