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
		if obj, ok := PairsObject(string(data)); ok {
			return nil, &ExitError{Code: ExitUsage, Err: &PairsError{Where: where, Given: strings.TrimSpace(string(data)), Object: obj}}
		}
		hint := ""
		if !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			hint = `; the arguments are a JSON object, such as {"name": "value"}`
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at := "at the end of the input"
			if !strings.Contains(se.Error(), "unexpected end") {
				at = position(data, se.Offset)
			}
			return nil, UsageErrorf("%s: invalid JSON %s: %s%s", where, at, strings.TrimPrefix(se.Error(), "json: "), hint)
		}
		return nil, UsageErrorf("%s: invalid JSON: %v%s", where, err, hint)
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

// A PairsError is an --args value written as NAME=VALUE pairs
// (name=Ada, or a=1,b=2) where a JSON object is wanted: it shows the
// object meant.
type PairsError struct {
	Where  string // the flag and where its value came from: "--args", "--args @FILE"
	Given  string // the value as given
	Object string // the JSON object it means, compact
}

// Error says that the arguments are a JSON object, and shows it as a
// value of --args, quoted for the shell.
func (e *PairsError) Error() string {
	return fmt.Sprintf("%s: the arguments are a JSON object, not %s: --args %s", e.Where, e.Given, ShellQuote(e.Object))
}

// maxPairs bounds the NAME=VALUE pairs that PairsObject reads.
const maxPairs = 64

// PairsObject reads s as NAME=VALUE pairs, separated by commas or spaces
// (name=Ada, a=1,b=2), and returns the JSON object they mean: a VALUE
// that is a JSON number, true, false or null as that, any other as a
// string. ok is false when s is not such pairs.
func PairsObject(s string) (obj string, ok bool) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 || len(fields) > maxPairs {
		return "", false
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		name, value, found := strings.Cut(f, "=")
		if !found || !isPairName(name) {
			return "", false
		}
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		var scalar any
		if json.Unmarshal([]byte(value), &scalar) == nil {
			switch scalar.(type) {
			case nil, bool, float64:
				b.WriteString(value)
				continue
			}
		}
		v, _ := json.Marshal(value)
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String(), true
}

// isPairName reports whether s can be the NAME of a NAME=VALUE pair: a
// letter or underscore, then letters, digits, '_', '-' or '.'.
func isPairName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// ShellQuote quotes s for a POSIX shell: in single quotes, unless it
// needs none.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./-_", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
