package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

// Strings are scanned eight bytes at a time: a word of text is loaded into
// a uint64 and the bytes that need a look (a quote, a backslash, a control
// character, a byte of a multi-byte character) are found with a few
// arithmetic operations, the rest skipped in one step.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// word loads the eight bytes at b[i:], the first in the low byte.
func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// zeroBytes marks (with its high bit) each zero byte of x; above the
// first, a marked byte may be a false alarm, so only the first mark is
// read.
func zeroBytes(x uint64) uint64 { return (x - lowBits) &^ x & highBits }

// quoteOrBackslash marks the bytes of x that are '"' or '\\'.
func quoteOrBackslash(x uint64) uint64 {
	return zeroBytes(x^(lowBits*'"')) | zeroBytes(x^(lowBits*'\\'))
}

// notPlain marks the bytes of x that a string cannot hold as themselves
// without a check: '"', '\\', control characters and non-ASCII bytes.
func notPlain(x uint64) uint64 {
	return quoteOrBackslash(x) | (x-lowBits*0x20)&^x&highBits | x&highBits
}

// firstMarked returns the index of the first byte marked in m (not 0).
func firstMarked(m uint64) int { return bits.TrailingZeros64(m) >> 3 }
