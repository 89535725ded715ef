package jsonscan

import (
	"unicode/utf8"
)

// Flags select the checks a Scanner makes beyond the JSON grammar.
type Flags uint8

const (
	// UTF8 rejects strings that are not valid UTF-8 (encoding/json accepts
	// them and decodes each invalid byte as U+FFFD).
	UTF8 Flags = 1 << iota
	// Duplicates records the first key that repeats an earlier key of the
	// same object (see Scanner.Duplicate). Scanning goes on, so that a
	// syntax error later in the text still wins.
	Duplicates
)

// A Kind says what is wrong with the text a Scanner stopped at.
type Kind uint8

// The kinds of error. Their String texts are those of the strict decoder.
const (
	NoError            Kind = iota // the text is valid so far
	UnexpectedEOF                  // a value is missing at the end of the text
	UnexpectedChar                 // a value cannot start with the byte at Offset
	BadLiteral                     // true, false or null misspelled
	BadNumber                      // a number breaks the grammar at Offset
	UnterminatedString             // no closing quote (or a backslash at the end)
	BadEscape                      // an escape other than \" \\ \/ \b \f \n \r \t \uXXXX
	BadUnicodeEscape               // \u not followed by four hex digits
	ControlChar                    // an unescaped byte below 0x20 in a string
	InvalidUTF8                    // invalid UTF-8 in a string (with the UTF8 flag)
	UnterminatedArray              // the text ends inside an array
	ArraySeparator                 // neither ',' nor ']' after an element
	ExpectedKey                    // an object member does not start with a string
	ExpectedColon                  // no ':' after an object key
	UnterminatedObject             // the text ends inside an object
	ObjectSeparator                // neither ',' nor '}' after a member
	TrailingData                   // more than one value (see Scanner.Document)
	TooDeep                        // nesting deeper than Scanner.MaxDepth
)

var kindText = [...]string{
	NoError:            "no error",
	UnexpectedEOF:      "unexpected end of input",
	UnexpectedChar:     "unexpected character",
	BadLiteral:         "invalid literal",
	BadNumber:          "invalid number",
	UnterminatedString: "unterminated string",
	BadEscape:          "invalid escape",
	BadUnicodeEscape:   `invalid \u escape`,
	ControlChar:        "control character in string",
	InvalidUTF8:        "invalid UTF-8",
	UnterminatedArray:  "unterminated array",
	ArraySeparator:     "expected ',' or ']'",
	ExpectedKey:        "expected a string key",
	ExpectedColon:      "expected ':'",
	UnterminatedObject: "unterminated object",
	ObjectSeparator:    "expected ',' or '}'",
	TrailingData:       "data after the value",
	TooDeep:            "nesting too deep",
}

// String describes k in a few words.
func (k Kind) String() string {
	if int(k) < len(kindText) {
		return kindText[k]
	}
	return "unknown error"
}

// An Error locates the first problem a Scanner found.
type Error struct {
	Kind   Kind
	Offset int // where in the text; len(text) at its end
}

// A Key locates an object key in the text: its contents, without the
// quotes.
type Key struct {
	Start, End int
	// Escaped reports that the contents are not the key byte for byte:
	// they hold an escape, or invalid UTF-8 (which decodes to U+FFFD).
	Escaped bool
}

// A Scanner validates JSON text in one pass. Set Data, MaxDepth and
// Flags, then call Document, or drive it value by value (Value,
// ObjectStart and ObjectNext, with Pos and SkipSpace) to read a document
// while validating it. The first error stops it: every method then
// reports false, and Err tells what and where.
//
// A Scanner with the Duplicates flag borrows a buffer from a pool; call
// Release when done with it.
type Scanner struct {
	// Data is the text.
	Data []byte
	// Pos is the offset of the next byte to read. Callers that read a
	// token themselves (a bracket, a comma) advance it.
	Pos int
	// MaxDepth bounds the nesting of arrays and objects; the outermost
	// counts as 1.
	MaxDepth int
	// Flags select the optional checks.
	Flags Flags

	err  Error
	dup  Key
	keys []Key // keys of the objects being scanned, innermost last
	pool *[]Key
}

// Err returns the first error, whose Kind is NoError if there is none.
func (s *Scanner) Err() Error { return s.err }

// Failed reports whether the scanner has stopped at an error.
func (s *Scanner) Failed() bool { return s.err.Kind != NoError }

// Fail records an error of kind k at Pos, unless one is recorded already,
// and returns false.
func (s *Scanner) Fail(k Kind) bool {
	if s.err.Kind == NoError {
		s.err = Error{Kind: k, Offset: s.Pos}
	}
	return false
}

// Duplicate returns the first repeated key found (with the Duplicates
// flag) and whether there is one.
func (s *Scanner) Duplicate() (Key, bool) { return s.dup, s.dup.End != 0 }

// SetDuplicate replaces the recorded duplicate (the zero Key for none), so
// that a caller can tell the duplicates of one value from those of the
// text around it.
func (s *Scanner) SetDuplicate(k Key) { s.dup = k }

// Release returns the scanner's buffer to the pool. The scanner must not
// be used afterwards.
func (s *Scanner) Release() {
	if s.pool != nil {
		if cap(s.keys) <= maxPooledKeys {
			*s.pool = s.keys[:0]
			keysPool.Put(s.pool)
		}
		s.pool, s.keys = nil, nil
	}
}

// SkipSpace advances Pos over whitespace.
func (s *Scanner) SkipSpace() { s.Pos = SkipSpace(s.Data, s.Pos) }

// Document scans Data as exactly one value with optional whitespace
// around it, and reports whether it is valid. Empty text is an
// UnexpectedEOF; text after the value is TrailingData.
func (s *Scanner) Document() bool {
	s.SkipSpace()
	if !s.Value(0) {
		return false
	}
	s.SkipSpace()
	if s.Pos != len(s.Data) {
		return s.Fail(TrailingData)
	}
	return true
}

// Value scans the value at Pos; depth is the nesting of the array or
// object that holds it (0 at the top level).
func (s *Scanner) Value(depth int) bool {
	if s.Pos >= len(s.Data) {
		return s.Fail(UnexpectedEOF)
	}
	switch c := s.Data[s.Pos]; {
	case c == '"':
		_, ok := s.String()
		return ok
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return s.Fail(UnexpectedChar)
}

func (s *Scanner) literal(lit string) bool {
	if len(s.Data)-s.Pos < len(lit) || string(s.Data[s.Pos:s.Pos+len(lit)]) != lit {
		return s.Fail(BadLiteral)
	}
	s.Pos += len(lit)
	return true
}

func (s *Scanner) number() bool {
	b, i := s.Data, s.Pos
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		s.Pos = i
		return s.Fail(BadNumber)
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.Pos = i
			return s.Fail(BadNumber)
		}
		i = skipDigits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.Pos = i
			return s.Fail(BadNumber)
		}
		i = skipDigits(b, i)
	}
	s.Pos = i
	return true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// String scans the string at Pos ('"') and returns the span of its
// contents.
func (s *Scanner) String() (Key, bool) {
	b := s.Data
	i := s.Pos + 1
	k := Key{Start: i}
	ascii := true // eight bytes at a time until the text turns out not to be ASCII
	for {
		for ascii && i+8 <= len(b) {
			if m := notPlain(word(b, i)); m != 0 {
				i += firstMarked(m)
				break
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			s.Pos = i
			return k, s.Fail(UnterminatedString)
		}
		switch c := b[i]; {
		case c == '"':
			k.End = i
			s.Pos = i + 1
			return k, true
		case c == '\\':
			k.Escaped = true
			if i+1 >= len(b) {
				s.Pos = i
				return k, s.Fail(UnterminatedString)
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					s.Pos = i
					return k, s.Fail(BadUnicodeEscape)
				}
				i += 6
			default:
				s.Pos = i
				return k, s.Fail(BadEscape)
			}
		case c < 0x20:
			s.Pos = i
			return k, s.Fail(ControlChar)
		default:
			ascii = false
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				if s.Flags&UTF8 != 0 {
					s.Pos = i
					return k, s.Fail(InvalidUTF8)
				}
				k.Escaped = true
			}
			i += size
		}
	}
}

func (s *Scanner) array(depth int) bool {
	if depth > s.MaxDepth {
		return s.Fail(TooDeep)
	}
	s.Pos++
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == ']' {
		s.Pos++
		return true
	}
	for {
		s.SkipSpace()
		if !s.Value(depth) {
			return false
		}
		s.SkipSpace()
		if s.Pos >= len(s.Data) {
			return s.Fail(UnterminatedArray)
		}
		switch s.Data[s.Pos] {
		case ',':
			s.Pos++
		case ']':
			s.Pos++
			return true
		default:
			return s.Fail(ArraySeparator)
		}
	}
}

// object scans the object at Pos. It is ObjectStart and ObjectNext in one
// loop, for the objects nobody looks into.
func (s *Scanner) object(depth int) bool {
	if depth > s.MaxDepth {
		return s.Fail(TooDeep)
	}
	b := s.Data
	it := ObjectIter{depth: depth, base: len(s.keys)}
	i := SkipSpace(b, s.Pos+1)
	if i < len(b) && b[i] == '}' {
		s.Pos = i + 1
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			s.Pos = i
			return s.Fail(ExpectedKey)
		}
		s.Pos = i
		k, ok := s.String()
		if !ok {
			return false
		}
		if s.Flags&Duplicates != 0 {
			s.noteKey(&it, k)
		}
		i = SkipSpace(b, s.Pos)
		if i >= len(b) || b[i] != ':' {
			s.Pos = i
			return s.Fail(ExpectedColon)
		}
		s.Pos = SkipSpace(b, i+1)
		if !s.Value(depth) {
			return false
		}
		i = SkipSpace(b, s.Pos)
		if i >= len(b) {
			s.Pos = i
			return s.Fail(UnterminatedObject)
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			s.Pos = i + 1
			if s.Flags&Duplicates != 0 {
				s.closeObject(&it)
			}
			return true
		default:
			s.Pos = i
			return s.Fail(ObjectSeparator)
		}
	}
}

// An ObjectIter is the state of a Scanner walking an object's members.
type ObjectIter struct {
	depth int
	base  int // index in Scanner.keys of the object's first key
	big   bool
	done  bool
}

// ObjectStart begins scanning the object at Pos ('{'); depth is its
// nesting (1 for a top-level object).
func (s *Scanner) ObjectStart(depth int) (ObjectIter, bool) {
	it := ObjectIter{depth: depth, base: len(s.keys)}
	if depth > s.MaxDepth {
		return it, s.Fail(TooDeep)
	}
	s.Pos++
	s.SkipSpace()
	if s.Pos < len(s.Data) && s.Data[s.Pos] == '}' {
		s.Pos++
		it.done = true
	}
	return it, true
}

// ObjectNext scans the next member: its key, and its value, which is
// Data[vs:ve]. ok is false on an error, more false after the last member
// (Pos is then past the closing brace).
func (s *Scanner) ObjectNext(it *ObjectIter) (k Key, vs, ve int, more, ok bool) {
	if it.done {
		return k, 0, 0, false, true
	}
	s.SkipSpace()
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != '"' {
		return k, 0, 0, false, s.Fail(ExpectedKey)
	}
	if k, ok = s.String(); !ok {
		return k, 0, 0, false, false
	}
	if s.Flags&Duplicates != 0 {
		s.noteKey(it, k)
	}
	s.SkipSpace()
	if s.Pos >= len(s.Data) || s.Data[s.Pos] != ':' {
		return k, 0, 0, false, s.Fail(ExpectedColon)
	}
	s.Pos++
	s.SkipSpace()
	vs = s.Pos
	if !s.Value(it.depth) {
		return k, 0, 0, false, false
	}
	ve = s.Pos
	s.SkipSpace()
	if s.Pos >= len(s.Data) {
		return k, 0, 0, false, s.Fail(UnterminatedObject)
	}
	switch s.Data[s.Pos] {
	case ',':
		s.Pos++
	case '}':
		s.Pos++
		it.done = true
		if s.Flags&Duplicates != 0 {
			s.closeObject(it)
		}
	default:
		return k, 0, 0, false, s.Fail(ObjectSeparator)
	}
	return k, vs, ve, true, true
}

// KeyIs reports whether the key k equals name.
func (s *Scanner) KeyIs(k Key, name string) bool {
	return KeyEqual(s.Data[k.Start:k.End], k.Escaped, name)
}

// KeyString returns the key k, decoded.
func (s *Scanner) KeyString(k Key) string {
	return KeyString(s.Data[k.Start:k.End], k.Escaped)
}

// plain marks the bytes that stand for themselves in a string and need no
// check: printable ASCII other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
