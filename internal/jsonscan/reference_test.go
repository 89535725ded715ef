package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// reference is what encoding/json says about a text.
type reference struct {
	valid  bool   // json.Valid
	depth  int    // deepest nesting of arrays and objects (outermost 1)
	dup    bool   // an object repeats a key (compared decoded)
	dupKey string // the first repeated key in the text
	value  any    // the decoded value (numbers as json.Number)
}

// refScan asks encoding/json about data: json.Valid, then its tokenizer
// for depth and duplicate keys, then Unmarshal for the value.
func refScan(data []byte) reference {
	var r reference
	if r.valid = json.Valid(data); !r.valid {
		return r
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		obj     bool
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			panic("tokenizer refused valid JSON: " + err.Error())
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			top := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				continue
			}
			if top.wantKey {
				k := tok.(string)
				if top.keys[k] && !r.dup {
					r.dup, r.dupKey = true, k
				}
				top.keys[k] = true
				top.wantKey = false
				continue
			}
			top.wantKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		r.depth = max(r.depth, len(stack))
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&r.value); err != nil {
		panic("encoding/json cannot decode valid JSON: " + err.Error())
	}
	return r
}
