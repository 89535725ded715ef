package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A Template is the --args of mcpwire bench compiled once: the JSON object
// of the arguments, whose strings may hold placeholders that change on
// every call. Expanding it costs no allocation: the literal parts are
// copied as they are and the placeholders appended in between.
//
// The placeholders (see templateHelp):
//
//	{{seq}}          the call's number over the whole run: 0, 1, 2, ...
//	{{session}}      the number of the session that makes the call
//	{{rand A B}}     a random integer from A to B, both included
//	{{randstr N}}    N random letters and digits
//	{{choice a|b}}   one of the words between the bars, at random
//	{{uuid}}         a random UUID, version 4
//
// A string that is exactly {{seq}}, {{session}} or {{rand A B}} becomes a
// JSON number; anywhere else a placeholder is replaced by its text inside
// the string. "{{{{" is a literal "{{". Only string values hold
// placeholders, not member names.
type Template struct {
	parts  []part
	static []byte // the whole expansion when there are no placeholders
}

// A part is literal JSON, or a placeholder.
type part struct {
	lit []byte
	gen *generator
}

// The kinds of placeholders.
type genKind uint8

const (
	genSeq genKind = iota + 1
	genSession
	genRand
	genRandStr
	genChoice
	genUUID
)

// A generator produces the text of one placeholder.
type generator struct {
	kind  genKind
	lo    int64    // rand: the smallest value
	span  uint64   // rand: the number of values (0: all of int64)
	n     int      // randstr: the length
	words [][]byte // choice: the words, escaped for a JSON string
}

// A Call is what varies from call to call: its number, its session, and
// the random source of the worker that makes it.
type Call struct {
	Seq     int64
	Session int
	Rand    *rand.Rand
}

// Limits of a template.
const (
	// DefaultMaxPlaceholders bounds the placeholders of one template.
	DefaultMaxPlaceholders = 1024
	// maxRandStr bounds N in {{randstr N}}.
	maxRandStr = 1 << 20
	// maxChoices bounds the words of {{choice ...}}.
	maxChoices = 1024
)

// CompileTemplate compiles the arguments args, a JSON object (as
// app.ReadArgs returns it), with its placeholders.
func CompileTemplate(args json.RawMessage) (*Template, error) {
	c := &compiler{dec: json.NewDecoder(bytes.NewReader(args))}
	c.dec.UseNumber()
	tok, err := c.dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("want a JSON object")
	}
	if err := c.container('{'); err != nil {
		return nil, err
	}
	if _, err := c.dec.Token(); err != io.EOF {
		return nil, errors.New("want one JSON object")
	}
	c.flush()
	t := &Template{parts: c.parts}
	if len(t.parts) == 1 && t.parts[0].gen == nil {
		t.static = t.parts[0].lit
	}
	if len(t.parts) == 0 {
		t.static = []byte("{}")
	}
	return t, nil
}

// compiler turns the tokens of a JSON object into parts.
type compiler struct {
	dec   *json.Decoder
	parts []part
	lit   []byte // the literal being built
	gens  int
}

// flush ends the literal being built.
func (c *compiler) flush() {
	if len(c.lit) > 0 {
		c.parts = append(c.parts, part{lit: c.lit})
		c.lit = nil
	}
}

// container compiles the members of an object or the items of an array
// whose opening delimiter (open) has been read, and its closing one.
func (c *compiler) container(open json.Delim) error {
	c.lit = append(c.lit, byte(open))
	first := true
	for c.dec.More() {
		if !first {
			c.lit = append(c.lit, ',')
		}
		first = false
		if open == '{' {
			tok, err := c.dec.Token()
			if err != nil {
				return err
			}
			key, _ := json.Marshal(tok.(string))
			c.lit = append(append(c.lit, key...), ':')
		}
		if err := c.value(); err != nil {
			return err
		}
	}
	tok, err := c.dec.Token() // the closing delimiter
	if err != nil {
		return err
	}
	c.lit = append(c.lit, byte(tok.(json.Delim)))
	return nil
}

// value compiles the next value.
func (c *compiler) value() error {
	tok, err := c.dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		return c.container(v)
	case string:
		return c.str(v)
	case json.Number:
		c.lit = append(c.lit, v...)
	case bool:
		c.lit = strconv.AppendBool(c.lit, v)
	case nil:
		c.lit = append(c.lit, "null"...)
	}
	return nil
}

// str compiles a string value, with its placeholders.
func (c *compiler) str(s string) error {
	if !strings.Contains(s, "{{") {
		b, _ := json.Marshal(s)
		c.lit = append(c.lit, b...)
		return nil
	}
	// A string that is one numeric placeholder becomes a number.
	if g, ok, err := wholePlaceholder(s); err != nil {
		return err
	} else if ok {
		return c.add(g)
	}
	c.lit = append(c.lit, '"')
	var text strings.Builder
	for len(s) > 0 {
		i := strings.Index(s, "{{")
		if i < 0 {
			text.WriteString(s)
			break
		}
		text.WriteString(s[:i])
		s = s[i:]
		if strings.HasPrefix(s, "{{{{") {
			text.WriteString("{{")
			s = s[4:]
			continue
		}
		j := strings.Index(s, "}}")
		if j < 0 {
			return fmt.Errorf("%q: a placeholder is not closed with }}", clipText(s))
		}
		g, err := parsePlaceholder(s[2:j])
		if err != nil {
			return err
		}
		c.lit = appendEscaped(c.lit, text.String())
		text.Reset()
		if err := c.add(g); err != nil {
			return err
		}
		s = s[j+2:]
	}
	c.lit = appendEscaped(c.lit, text.String())
	c.lit = append(c.lit, '"')
	return nil
}

// add appends a placeholder.
func (c *compiler) add(g *generator) error {
	if c.gens++; c.gens > DefaultMaxPlaceholders {
		return fmt.Errorf("more than %d placeholders", DefaultMaxPlaceholders)
	}
	c.flush()
	c.parts = append(c.parts, part{gen: g})
	return nil
}

// wholePlaceholder reports whether s is exactly one placeholder whose value
// is a number, and returns it.
func wholePlaceholder(s string) (*generator, bool, error) {
	inner, ok := strings.CutPrefix(s, "{{")
	if !ok || strings.HasPrefix(s, "{{{{") {
		return nil, false, nil
	}
	inner, ok = strings.CutSuffix(inner, "}}")
	if !ok || strings.Contains(inner, "}}") || strings.Contains(inner, "{{") {
		return nil, false, nil
	}
	g, err := parsePlaceholder(inner)
	if err != nil {
		return nil, false, err
	}
	switch g.kind {
	case genSeq, genSession, genRand:
		return g, true, nil
	}
	return nil, false, nil
}

// parsePlaceholder parses what is between {{ and }}.
func parsePlaceholder(s string) (*generator, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(s), " ")
	arg = strings.TrimSpace(arg)
	fields := strings.Fields(arg)
	noArgs := func(g *generator) (*generator, error) {
		if arg != "" {
			return nil, fmt.Errorf("{{%s}} takes no argument", name)
		}
		return g, nil
	}
	switch name {
	case "seq":
		return noArgs(&generator{kind: genSeq})
	case "session":
		return noArgs(&generator{kind: genSession})
	case "uuid":
		return noArgs(&generator{kind: genUUID})
	case "rand":
		if len(fields) != 2 {
			return nil, errors.New("{{rand A B}} takes two integers, such as {{rand 1 100}}")
		}
		lo, err1 := strconv.ParseInt(fields[0], 10, 64)
		hi, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("{{rand %s}}: want two integers", arg)
		}
		if lo > hi {
			return nil, fmt.Errorf("{{rand %s}}: %d is more than %d", arg, lo, hi)
		}
		return &generator{kind: genRand, lo: lo, span: uint64(hi-lo) + 1}, nil
	case "randstr":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 || n > maxRandStr {
			return nil, fmt.Errorf("{{randstr %s}}: want a length from 0 to %d", arg, maxRandStr)
		}
		return &generator{kind: genRandStr, n: n}, nil
	case "choice":
		if arg == "" {
			return nil, errors.New("{{choice a|b|c}} takes words separated by |")
		}
		words := strings.Split(arg, "|")
		if len(words) > maxChoices {
			return nil, fmt.Errorf("{{choice}} takes at most %d words", maxChoices)
		}
		g := &generator{kind: genChoice}
		for _, w := range words {
			g.words = append(g.words, appendEscaped(nil, w))
		}
		return g, nil
	}
	return nil, fmt.Errorf("unknown placeholder {{%s}} (known: seq, session, rand A B, randstr N, choice a|b, uuid; {{{{ for a literal {{)", clipText(s))
}

// Static reports whether the template has no placeholders.
func (t *Template) Static() bool { return t.static != nil }

// Expand appends the arguments of call c to buf and returns them. With no
// placeholders it returns the one expansion, without copying.
func (t *Template) Expand(buf []byte, c *Call) []byte {
	if t.static != nil {
		return t.static
	}
	for i := range t.parts {
		p := &t.parts[i]
		if p.gen == nil {
			buf = append(buf, p.lit...)
			continue
		}
		buf = p.gen.append(buf, c)
	}
	return buf
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// append appends the placeholder's text for call c.
func (g *generator) append(b []byte, c *Call) []byte {
	switch g.kind {
	case genSeq:
		return strconv.AppendInt(b, c.Seq, 10)
	case genSession:
		return strconv.AppendInt(b, int64(c.Session), 10)
	case genRand:
		if g.span == 0 {
			return strconv.AppendInt(b, int64(c.Rand.Uint64()), 10)
		}
		return strconv.AppendInt(b, g.lo+int64(c.Rand.Uint64N(g.span)), 10)
	case genRandStr:
		for range g.n {
			b = append(b, alnum[c.Rand.IntN(len(alnum))])
		}
		return b
	case genChoice:
		return append(b, g.words[c.Rand.IntN(len(g.words))]...)
	case genUUID:
		var u [16]byte
		x, y := c.Rand.Uint64(), c.Rand.Uint64()
		for i := range 8 {
			u[i], u[8+i] = byte(x>>(8*i)), byte(y>>(8*i))
		}
		u[6] = u[6]&0x0f | 0x40 // version 4
		u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
		const hex = "0123456789abcdef"
		for i, v := range u {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				b = append(b, '-')
			}
			b = append(b, hex[v>>4], hex[v&0xf])
		}
		return b
	}
	return b
}

// appendEscaped appends s escaped for the inside of a JSON string.
func appendEscaped(b []byte, s string) []byte {
	if s == "" {
		return b
	}
	q, _ := json.Marshal(s)
	return append(b, q[1:len(q)-1]...)
}

// clipText cuts s for an error message.
func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
