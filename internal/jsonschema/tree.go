package jsonschema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// A tree is a schema document parsed once at compile time. Every node keeps
// its raw bytes, so enum and const values are canonicalized by the same code
// that reads instances.
type tree struct {
	kind jsonKind
	raw  []byte
	str  string   // decoded, for strings
	keys []string // object member names, in document order
	vals []*tree  // object member values, or array elements
}

// get returns the member named key, or nil.
func (t *tree) get(key string) *tree {
	if t == nil || t.kind != kindObject {
		return nil
	}
	for i, k := range t.keys {
		if k == key {
			return t.vals[i]
		}
	}
	return nil
}

// parseTree builds the tree of the well-formed document d. Duplicate member
// names are an error: a schema that says two things must not be guessed at.
func parseTree(d []byte) (*tree, error) {
	t, _, err := parseTreeAt(d, jsonscan.SkipSpace(d, 0))
	return t, err
}

func parseTreeAt(d []byte, i int) (*tree, int, error) {
	t := &tree{kind: kindAt(d, i)}
	start := i
	switch t.kind {
	case kindString:
		end, _ := jsonscan.SkipString(d, i)
		t.str = string(appendUnescaped(nil, d[i:end]))
		i = end
	case kindObject:
		i = jsonscan.SkipSpace(d, i+1)
		for d[i] != '}' {
			end, _ := jsonscan.SkipString(d, i)
			key := string(appendUnescaped(nil, d[i:end]))
			for _, k := range t.keys {
				if k == key {
					return nil, 0, fmt.Errorf("duplicate member %q at offset %d", key, i)
				}
			}
			i = jsonscan.SkipSpace(d, jsonscan.SkipSpace(d, end)+1)
			v, end, err := parseTreeAt(d, i)
			if err != nil {
				return nil, 0, err
			}
			t.keys = append(t.keys, key)
			t.vals = append(t.vals, v)
			if i = jsonscan.SkipSpace(d, end); d[i] == ',' {
				i = jsonscan.SkipSpace(d, i+1)
			}
		}
		i++
	case kindArray:
		i = jsonscan.SkipSpace(d, i+1)
		for d[i] != ']' {
			v, end, err := parseTreeAt(d, i)
			if err != nil {
				return nil, 0, err
			}
			t.vals = append(t.vals, v)
			if i = jsonscan.SkipSpace(d, end); d[i] == ',' {
				i = jsonscan.SkipSpace(d, i+1)
			}
		}
		i++
	default:
		i = jsonscan.SkipValue(d, i)
	}
	t.raw = d[start:i]
	return t, i, nil
}

// resolvePointer finds the node a local reference "#..." names, or reports
// why it cannot.
func (t *tree) resolvePointer(ref string) (*tree, error) {
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, fmt.Errorf("$ref %q: bad escape in fragment", ref)
	}
	if frag == "" {
		return t, nil
	}
	if frag[0] != '/' {
		return nil, errAnchorRef
	}
	cur := t
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = unescapePointer(tok)
		switch cur.kind {
		case kindObject:
			next := cur.get(tok)
			if next == nil {
				return nil, fmt.Errorf("$ref %q: nothing at that location", ref)
			}
			cur = next
		case kindArray:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(cur.vals) || (len(tok) > 1 && tok[0] == '0') {
				return nil, fmt.Errorf("$ref %q: nothing at that location", ref)
			}
			cur = cur.vals[n]
		default:
			return nil, fmt.Errorf("$ref %q: nothing at that location", ref)
		}
	}
	return cur, nil
}

// escapePointer escapes one JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
