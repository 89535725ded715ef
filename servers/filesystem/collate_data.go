package filesystem

// The tables of compareNames are collData, the bytes of
// collate_table.bin (embedded by collate_table.go; both written by
// collate_gen.go, go generate). Packed bytes rather than Go array
// literals keep the generated source short (the literals were 5,920
// lines) and the lookups as fast. The format, all words four bytes little
// endian, one table after the other, their sizes the constants of
// collate_table.go:
//
//	blocks        collBlockCount × 1<<blockBits words: the table entry of
//	              each code point, by block (see collFallback for the
//	              entries); equal blocks are stored once
//	expansions    collExpansionWords words: the elements of the entries
//	              that have several, two words each (the primary weight,
//	              then the secondary rank << 8 | the tertiary weight)
//	contractions  collContractionCount × 4 words: the sequences weighed
//	              as one, in order: three characters (the third 0 when
//	              there are two), then the entry
//	split         collSplitCount words: the compatibility characters
//	              weighed in parts (see nfdRune), in order
//	index         collIndexLen bytes: the block of each 1<<blockBits code
//	              points (those past the index are in the last one's)
//
// collDataSHA256 is the checksum of the whole, which the tests check, as
// they check that the generator writes the committed files.

// The offsets of the tables in collData, and its length.
const (
	collBlocksOff       = 0
	collExpansionsOff   = collBlocksOff + 4*collBlockCount<<blockBits
	collContractionsOff = collExpansionsOff + 4*collExpansionWords
	collSplitOff        = collContractionsOff + 16*collContractionCount
	collIndexOff        = collSplitOff + 4*collSplitCount
	collDataLen         = collIndexOff + collIndexLen
)

// collWord returns the word at offset off of collData.
func collWord(off int) uint32 {
	return word(collData, off)
}

// word returns the word at offset off of s.
func word(s string, off int) uint32 {
	s = s[off : off+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// tableEntry returns the table's entry for r.
func tableEntry(r rune) uint32 {
	b := int(r >> blockBits)
	if b >= collIndexLen {
		b = collIndexLen - 1 // the blocks past the index are all like the last
	}
	blk := int(collData[collIndexOff+b])
	return collWord(collBlocksOff + 4*(blk<<blockBits|int(r&(1<<blockBits-1))))
}

// collExpansion returns word k of the expansions.
func collExpansion(k int) uint32 {
	return collWord(collExpansionsOff + 4*k)
}

// A collContraction is a sequence of two or three characters (the third
// 0 when there are two) weighed as one.
type collContraction struct {
	runes [3]rune
	entry uint32
}

// contractionFirst returns the first character of contraction k.
func contractionFirst(k int) rune {
	return rune(collWord(collContractionsOff + 16*k))
}

// isSplit reports whether r is weighed in parts (see nfdRune).
func isSplit(r rune) bool {
	lo, hi := 0, collSplitCount
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch s := rune(collWord(collSplitOff + 4*m)); {
		case s == r:
			return true
		case s < r:
			lo = m + 1
		default:
			hi = m
		}
	}
	return false
}
