package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// maxArgsSize bounds the JSON that --args reads from a file or stdin.
const maxArgsSize = 16 << 20

// ReadArgs resolves the value of --args: inline JSON, "@FILE", or "-"
// for standard input. It returns the JSON object, compacted. Its errors
// are usage errors that say where the JSON is wrong.
func ReadArgs(spec string, stdin io.Reader) (json.RawMessage, error) {
	where := "--args"
	var data []byte
	switch {
	case spec == "-":
		where = "--args - (standard input)"
		b, err := ReadBounded(stdin)
		if err != nil {
			return nil, UsageErrorf("%s: %v", where, err)
		}
		data = b
	case strings.HasPrefix(spec, "@"):
		where = "--args " + spec
		f, err := os.Open(spec[1:])
		if err != nil {
			return nil, UsageErrorf("--args: %v", UnwrapPathError(err))
		}
		defer f.Close()
		b, err := ReadBounded(f)
		if err != nil {
			return nil, UsageErrorf("%s: %v", where, err)
		}
		data = b
	default:
		data = []byte(spec)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, UsageErrorf("%s: no JSON given; want an object such as {\"name\": \"value\"}", where)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at := "at the end of the input"
			if !strings.Contains(se.Error(), "unexpected end") {
				at = position(data, se.Offset)
			}
			return nil, UsageErrorf("%s: invalid JSON %s: %s", where, at, strings.TrimPrefix(se.Error(), "json: "))
		}
		return nil, UsageErrorf("%s: invalid JSON: %v", where, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, UsageErrorf("%s: want a JSON object, got %s", where, JSONKind(v))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return nil, UsageErrorf("%s: invalid JSON: %v", where, err)
	}
	return b.Bytes(), nil
}

// ReadStringArgs resolves --args for a prompt: a JSON object whose
// values are all strings.
func ReadStringArgs(spec string, stdin io.Reader) (map[string]string, error) {
	raw, err := ReadArgs(spec, stdin)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, UsageErrorf("--args: %v", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		s, ok := m[k].(string)
		if !ok {
			return nil, UsageErrorf("--args: prompt arguments are strings, but %q is %s (quote it)", k, JSONKind(m[k]))
		}
		out[k] = s
	}
	return out, nil
}

// ReadBounded reads r to its end (an --args file, a secret): at most
// 16 MiB, or it fails.
func ReadBounded(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxArgsSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxArgsSize {
		return nil, fmt.Errorf("more than %d MiB", maxArgsSize>>20)
	}
	return b, nil
}

// position returns where the byte before offset off of data is, as "at
// line L, column C" (both from 1): the offset of a *json.SyntaxError is
// just past the byte that went wrong.
func position(data []byte, off int64) string {
	off = min(max(off, 1), int64(len(data)))
	before := data[:off-1]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("at line %d, column %d", line, col)
}

// JSONKind names the kind of a decoded JSON value, with an article: "an
// object", "a string", "null".
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// UnwrapPathError returns "FILE: reason" for an error of package os
// (without the operation), and err itself otherwise.
func UnwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
