package server

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// An argDecoder decodes the arguments of a typed tool into its Go type:
// through a flatDecoder when it can, else with encoding/json. When
// encoding/json refuses a number, the arguments' numbers are checked
// against their Go types and rewritten (jsonschema.Numbers): a whole
// number written 1.0 or 1e1 goes to a Go integer as 1 or 10, exactly, and
// one that does not fit its type is reported with its location and the
// bound it breaks. Arguments that decode at once cost nothing more.
type argDecoder struct {
	flat    *flatDecoder        // nil unless the type is a struct of plain fields
	numbers *jsonschema.Numbers // nil if the type holds no number
}

func newArgDecoder(t reflect.Type) argDecoder {
	return argDecoder{flat: newFlatDecoder(t), numbers: jsonschema.NumbersOf(t)}
}

// decode decodes the JSON object args into *v. Its error is a
// *jsonschema.ValidationError, or encoding/json's.
func (d argDecoder) decode(args []byte, v any) error {
	rv := reflect.ValueOf(v).Elem()
	if d.flat != nil && d.flat.decode(args, rv) {
		return nil
	}
	rv.SetZero()
	err := json.Unmarshal(args, v)
	var typeErr *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &typeErr) {
		return err
	}
	fixed, changed, nerr := d.numbers.Normalize(args)
	if nerr != nil {
		return nerr
	}
	if !changed {
		return err
	}
	rv.SetZero()
	return json.Unmarshal(fixed, v)
}

// A flatDecoder decodes the arguments of a typed tool whose argument type
// is a struct of plain fields (strings, booleans, numbers) without going
// through encoding/json, which costs more than the rest of a small call.
// It gives exactly what json.Unmarshal gives, or declines: anything it is
// not sure of (a key that matches a field only case-insensitively, an
// escaped key or string, a value of another type, a number out of range)
// makes decode report false, and the caller uses encoding/json instead.
type flatDecoder struct {
	fields []flatField
}

type flatField struct {
	name  string
	index int
	kind  reflect.Kind
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// customDecoding reports whether encoding/json decodes t through a method.
func customDecoding(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// newFlatDecoder returns a decoder for t, or nil if t is not a struct of
// plain fields.
func newFlatDecoder(t reflect.Type) *flatDecoder {
	if t.Kind() != reflect.Struct || customDecoding(t) {
		return nil
	}
	d := &flatDecoder{}
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || f.Anonymous || name == "-" || strings.Contains(opts, "string") || customDecoding(f.Type) {
			return nil
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
		default:
			return nil
		}
		if name == "" {
			name = f.Name
		}
		if seen[strings.ToLower(name)] {
			return nil // names that differ only in case: leave them to encoding/json
		}
		seen[strings.ToLower(name)] = true
		d.fields = append(d.fields, flatField{name: name, index: i, kind: f.Type.Kind()})
	}
	return d
}

// decode decodes the JSON object args into v, a settable struct of the
// decoder's type; it reports false, having possibly set some fields, when
// encoding/json must decode args instead.
func (d *flatDecoder) decode(args []byte, v reflect.Value) bool {
	ok := true
	isObject := jsonschema.EachMember(args, func(key []byte, escaped bool, val []byte) bool {
		var f *flatField
		for i := range d.fields {
			if string(key) == d.fields[i].name {
				f = &d.fields[i]
				break
			}
		}
		if f == nil {
			// encoding/json matches names case-insensitively.
			ok = !escaped && !d.foldMatch(key)
			return ok
		}
		if escaped {
			ok = false
			return false
		}
		if string(val) == "null" {
			return true // encoding/json leaves the field as it is
		}
		ok = setPlain(v.Field(f.index), f.kind, val)
		return ok
	})
	return ok && isObject
}

// foldMatch reports whether key equals a field's name but for case.
func (d *flatDecoder) foldMatch(key []byte) bool {
	for i := range d.fields {
		if strings.EqualFold(string(key), d.fields[i].name) {
			return true
		}
	}
	return false
}

// setPlain sets a plain field from a raw JSON value, or reports false.
func setPlain(fv reflect.Value, kind reflect.Kind, val []byte) bool {
	switch kind {
	case reflect.String:
		if len(val) < 2 || val[0] != '"' {
			return false
		}
		s, ok := jsonrpc.Unquote(val)
		if !ok {
			return false
		}
		fv.SetString(s)
	case reflect.Bool:
		switch string(val) {
		case "true":
			fv.SetBool(true)
		case "false":
			fv.SetBool(false)
		default:
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || fv.OverflowInt(n) {
			return false
		}
		fv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(string(val), 10, 64)
		if err != nil || fv.OverflowUint(n) {
			return false
		}
		fv.SetUint(n)
	case reflect.Float32, reflect.Float64:
		if len(val) == 0 || (val[0] != '-' && (val[0] < '0' || val[0] > '9')) {
			return false
		}
		n, err := strconv.ParseFloat(string(val), fv.Type().Bits())
		if err != nil || fv.OverflowFloat(n) {
			return false
		}
		fv.SetFloat(n)
	default:
		return false
	}
	return true
}
