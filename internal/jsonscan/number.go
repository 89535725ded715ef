package jsonscan

// IsInteger reports whether b is a JSON number without a fraction or an
// exponent.
func IsInteger(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i == len(b) {
		return false
	}
	if b[i] == '0' {
		return i+1 == len(b)
	}
	for ; i < len(b); i++ {
		if b[i] < '0' || b[i] > '9' {
			return false
		}
	}
	return true
}

// ParseInt returns the value of the JSON integer b (see IsInteger)
// without allocating. It reports false if b is not an integer or does not
// fit in an int64.
func ParseInt(b []byte) (int64, bool) {
	if !IsInteger(b) {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var u uint64
	for _, c := range b {
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to itself: the minimum int64
	}
	if u == 1<<63 {
		return 0, false
	}
	return int64(u), true
}
