package jsonscan

import (
	"bytes"
	"slices"
	"sync"
)

// Duplicate keys are found without allocating. The keys of the objects
// being scanned are kept on a stack (Scanner.keys). A new key of a small
// object is compared with the earlier ones at once; in an object of more
// than maxLinearKeys members, the keys are sorted when the object closes
// and neighbours compared. Either way the duplicate recorded is the first
// in the text: the repeated key that comes earliest.

// maxLinearKeys is the object size up to which a new key is compared with
// each earlier one.
const maxLinearKeys = 16

// maxPooledKeys bounds the key stacks kept in the pool.
const maxPooledKeys = 1024

var keysPool = sync.Pool{New: func() any {
	s := make([]Key, 0, 4*maxLinearKeys)
	return &s
}}

// noteKey records k, a key of the object it walks, and compares it with
// the earlier keys while the object is small.
func (s *Scanner) noteKey(it *ObjectIter, k Key) {
	if s.pool == nil {
		s.pool = keysPool.Get().(*[]Key)
		s.keys = (*s.pool)[:0]
	}
	if !it.big {
		if len(s.keys)-it.base < maxLinearKeys {
			for _, prev := range s.keys[it.base:] {
				if s.sameKey(prev, k) {
					s.noteDuplicate(k)
					break
				}
			}
		} else {
			it.big = true
		}
	}
	s.keys = append(s.keys, k)
}

// closeObject checks the keys of a large object, then drops them.
func (s *Scanner) closeObject(it *ObjectIter) {
	if it.big {
		keys := s.keys[it.base:]
		escaped := false
		for _, k := range keys {
			escaped = escaped || k.Escaped
		}
		if escaped {
			s.duplicatesByValue(keys)
		} else {
			d := s.Data
			slices.SortFunc(keys, func(a, b Key) int {
				if c := bytes.Compare(d[a.Start:a.End], d[b.Start:b.End]); c != 0 {
					return c
				}
				return a.Start - b.Start
			})
			for i := 1; i < len(keys); i++ {
				if string(d[keys[i].Start:keys[i].End]) == string(d[keys[i-1].Start:keys[i-1].End]) {
					s.noteDuplicate(keys[i])
				}
			}
		}
	}
	s.keys = s.keys[:it.base]
}

// duplicatesByValue finds the repeated keys of a large object some of
// whose keys have escapes, by decoding them all.
func (s *Scanner) duplicatesByValue(keys []Key) {
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		v := s.KeyString(k)
		if _, dup := seen[v]; dup {
			s.noteDuplicate(k)
		}
		seen[v] = struct{}{}
	}
}

// noteDuplicate records k unless a duplicate earlier in the text is
// recorded already.
func (s *Scanner) noteDuplicate(k Key) {
	if s.dup.End == 0 || k.Start < s.dup.Start {
		s.dup = k
	}
}

func (s *Scanner) sameKey(a, b Key) bool {
	if !a.Escaped && !b.Escaped {
		return string(s.Data[a.Start:a.End]) == string(s.Data[b.Start:b.End])
	}
	return s.KeyString(a) == s.KeyString(b)
}
