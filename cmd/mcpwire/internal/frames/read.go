package frames

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"unicode/utf8"
)

// Reading a recording costs about one copy of it. The input is read into
// chunks: one of the input's size when Read can learn it, else 64 KiB,
// then twice as large each up to 4 MiB. A line within a chunk is decoded
// where it is, and its record's message is a slice of the chunk, never
// copied again (the records keep the chunks alive); a line across chunks
// is copied once, into a slice of its length. The records are counted
// before they are decoded, so that their slice is allocated once; of
// their other strings, the short ones that repeat (transport, session,
// method, error) are shared.
//
// So reading a recording allocates its input once, up to 4 MiB more, a
// second copy of the lines that cross chunks (a line longer than 4 MiB,
// when the size of the input is not known), and the records: 152 bytes
// each.

// MaxRecordSize bounds one line of a recording that Read accepts.
const MaxRecordSize = 64 << 20

const (
	firstChunk = 64 << 10
	maxChunk   = 4 << 20
	// maxHint bounds the first chunk that a size hint makes.
	maxHint = 1 << 30
)

// Read reads a recording: every record, in order. Blank lines are skipped;
// a line that is not a record is an error naming its line number, as is a
// line longer than MaxRecordSize and a failure of r (wrapped). With an
// error, the records of the lines before it are returned too.
//
// A record is refused when a line holds anything but one JSON object, or a
// member that is not one of the format's (member names are compared after
// decoding, and case-sensitively), or one twice, or a member of the wrong
// type.
func Read(r io.Reader) ([]Record, error) {
	return ReadSize(r, sizeOf(r))
}

// ReadSize is Read, told the size of the input (an HTTP request's
// Content-Length, -1 if not known), which Read learns by itself from a
// file or a bytes.Reader: the input is then read into one chunk, at one
// allocation. The size is a hint: the input may be shorter or longer.
func ReadSize(r io.Reader, size int64) ([]Record, error) {
	in := &input{r: r, first: firstChunk, max: maxChunk}
	in.read(size)
	out := make([]Record, 0, in.lines)
	d := &decoder{shared: map[string]string{}}
	for n := 1; ; n++ {
		line, ok := in.next()
		if !ok {
			if in.err != nil {
				return out, fmt.Errorf("line %d: %w", n, in.err)
			}
			return out, nil
		}
		if len(bytes.TrimSuffix(line, newline)) > MaxRecordSize {
			return out, fmt.Errorf("line %d: %w", n, errLineTooLong)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out = append(out, Record{})
		if err := d.decode(line, &out[len(out)-1]); err != nil {
			return out[:len(out)-1], fmt.Errorf("line %d: not a frame record: %w", n, err)
		}
		if err := check(&out[len(out)-1]); err != nil {
			return out[:len(out)-1], fmt.Errorf("line %d: %w", n, err)
		}
	}
}

// sizeOf returns the size of what r has left to read, or -1.
func sizeOf(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(v.Len())
	case interface{ Stat() (fs.FileInfo, error) }: // *os.File
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		size := fi.Size()
		if s, ok := r.(io.Seeker); ok {
			if at, err := s.Seek(0, io.SeekCurrent); err == nil {
				size -= at
			}
		}
		return size
	}
	return -1
}

// errLineTooLong ends the reading of a recording at a line longer than
// MaxRecordSize.
var errLineTooLong = fmt.Errorf("the line exceeds %d bytes", MaxRecordSize)

// input is a recording read into chunks.
type input struct {
	r          io.Reader
	first, max int // the sizes of the first chunk and of the largest
	chunks     [][]byte
	lines      int   // how many lines the chunks hold, at most
	err        error // why reading stopped, if not the end of the input
	at         int   // next: the chunk and offset of the next line
	off        int
}

// read reads the input into chunks, the first of size+1 bytes if size is
// positive (+1: room to see the end), until its end, an error, or a line
// longer than MaxRecordSize (whose start is dropped).
func (in *input) read(size int64) {
	next := in.first
	if size > 0 {
		next = int(min(size, maxHint)) + 1
	}
	lineLen := 0 // of the line being read, so far
	for in.err == nil {
		c := make([]byte, next)
		next = min(max(2*next, in.first), in.max)
		n, err := io.ReadFull(in.r, c)
		c = c[:n]
		if k := bytes.Count(c, newline); k > 0 {
			in.lines += k
			lineLen = len(c) - bytes.LastIndexByte(c, '\n') - 1
		} else {
			lineLen += n
		}
		if lineLen > MaxRecordSize {
			err = errLineTooLong
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if lineLen > 0 {
				in.lines++ // the last line, without its newline
			}
			err = nil
			in.chunks = append(in.chunks, c)
			break
		}
		if err != nil {
			// What follows the last newline is not a whole line.
			c = c[:max(n-lineLen, 0)]
			if drop := lineLen - n; drop > 0 {
				in.trim(drop)
			}
			in.err = err
		}
		in.chunks = append(in.chunks, c)
	}
}

// trim drops n bytes from the end of the chunks.
func (in *input) trim(n int) {
	for n > 0 && len(in.chunks) > 0 {
		last := in.chunks[len(in.chunks)-1]
		k := min(n, len(last))
		in.chunks[len(in.chunks)-1] = last[:len(last)-k]
		n -= k
		if len(last) == k {
			in.chunks = in.chunks[:len(in.chunks)-1]
		}
	}
}

// next returns the next line, with its newline: a slice of a chunk, or a
// copy of its parts when it crosses chunks.
func (in *input) next() ([]byte, bool) {
	for in.at < len(in.chunks) && in.off == len(in.chunks[in.at]) {
		in.at, in.off = in.at+1, 0
	}
	if in.at == len(in.chunks) {
		return nil, false
	}
	c := in.chunks[in.at][in.off:]
	if i := bytes.IndexByte(c, '\n'); i >= 0 {
		in.off += i + 1
		return c[: i+1 : i+1], true
	}
	// The line goes on in the next chunks: measure it, then copy it.
	n, end, last := len(c), 0, in.at+1
	for ; last < len(in.chunks); last++ {
		if end = bytes.IndexByte(in.chunks[last], '\n') + 1; end > 0 {
			n += end
			break
		}
		n += len(in.chunks[last])
	}
	line := make([]byte, 0, n)
	line = append(line, c...)
	for k := in.at + 1; k < len(in.chunks) && k <= last; k++ {
		if k == last {
			line = append(line, in.chunks[k][:end]...)
		} else {
			line = append(line, in.chunks[k]...)
		}
	}
	in.at, in.off = min(last, len(in.chunks)), end
	return line, true
}

var newline = []byte{'\n'}

// A decoder decodes the lines of one recording.
type decoder struct {
	shared map[string]string // short strings met before, shared
}

// maxShared bounds what a decoder shares: the strings of at most 64
// bytes, 4,096 of them.
const (
	maxSharedLen = 64
	maxShared    = 4096
)

// The members of a record, by their names; each a bit, to find one
// given twice.
const (
	mTime uint = 1 << iota
	mFrom
	mMessage
	mRaw
	mTransport
	mSession
	mStatus
	mMethod
	mLatency
	mError
)

var members = map[string]uint{
	"time": mTime, "from": mFrom, "message": mMessage, "raw": mRaw, "transport": mTransport,
	"session": mSession, "status": mStatus, "method": mMethod, "latency_ms": mLatency, "error": mError,
}

// memberName returns the name of member m.
func memberName(m uint) string {
	for name, bit := range members {
		if bit == m {
			return name
		}
	}
	return "?"
}

// decode decodes line, one record, into rec; the message is a slice of
// line.
func (d *decoder) decode(line []byte, rec *Record) error {
	if !json.Valid(line) {
		return errors.New("invalid JSON")
	}
	i := skipSpace(line, 0)
	if line[i] != '{' {
		return errors.New("not a JSON object")
	}
	var seen uint
	for i = skipSpace(line, i+1); line[i] == '"'; {
		kend := skipString(line, i)
		key := line[i+1 : kend-1]
		bit, ok := members[string(key)]
		if bytes.IndexByte(key, '\\') >= 0 || !ok {
			// Compared as decoded: an escaped name is the same name.
			name, err := d.str(line[i:kend])
			if err != nil {
				return err
			}
			if bit, ok = members[name]; !ok {
				return fmt.Errorf("unknown member %q", name)
			}
		}
		if seen&bit != 0 {
			return fmt.Errorf("member %q appears twice", memberName(bit))
		}
		seen |= bit
		i = skipSpace(line, skipSpace(line, kend)+1) // past the colon
		vend := skipValue(line, i)
		if err := d.member(rec, bit, line[i:vend]); err != nil {
			return err
		}
		if i = skipSpace(line, vend); line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	return nil
}

// check reports what a record decoded lacks.
func check(rec *Record) error {
	if rec.From != FromClient && rec.From != FromServer {
		return fmt.Errorf(`"from" is %q, want "client" or "server"`, rec.From)
	}
	if rec.Raw == nil && len(rec.Message) == 0 {
		return errors.New(`the record has neither "message" nor "raw"`)
	}
	return nil
}

// member sets the member m of rec from its raw value v.
func (d *decoder) member(rec *Record, m uint, v []byte) error {
	null := string(v) == "null"
	var err error
	switch m {
	case mMessage:
		rec.Message = v[:len(v):len(v)] // an append must not write over the block
	case mTime:
		err = rec.Time.UnmarshalJSON(v)
	case mRaw:
		if !null {
			var s string
			if s, err = d.value(v, false); err == nil {
				rec.Raw = &s
			}
		}
	case mStatus:
		if !null {
			rec.Status, err = strconv.Atoi(string(v))
			if err != nil {
				err = errors.New("not an integer")
			}
		}
	case mLatency:
		if !null {
			rec.LatencyMS, err = strconv.ParseFloat(string(v), 64)
			if err != nil {
				err = errors.New("not a number")
			}
		}
	default: // strings
		var s string
		if !null {
			if s, err = d.value(v, true); err != nil {
				break
			}
		}
		switch m {
		case mFrom:
			rec.From = s
		case mTransport:
			rec.Transport = s
		case mSession:
			rec.Session = s
		case mMethod:
			rec.Method = s
		case mError:
			rec.Error = s
		}
	}
	if err != nil {
		return fmt.Errorf("%q: %v", memberName(m), err)
	}
	return nil
}

// value returns the JSON string v, shared with earlier ones if share.
func (d *decoder) value(v []byte, share bool) (string, error) {
	if v[0] != '"' {
		return "", errors.New("not a string")
	}
	if !share || len(v) > maxSharedLen+2 {
		return d.str(v)
	}
	if s, ok := d.shared[string(v)]; ok {
		return s, nil
	}
	s, err := d.str(v)
	if err == nil && len(d.shared) < maxShared {
		d.shared[string(v)] = s
	}
	return s, err
}

// str decodes the JSON string v as encoding/json does.
func (d *decoder) str(v []byte) (string, error) {
	body := v[1 : len(v)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// The skip functions read well-formed JSON (json.Valid has seen it).

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the end of the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}

// skipValue returns the end of the value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}
