package jsonschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// InferOptions configure [For]. A nil *InferOptions means the
// defaults.
type InferOptions struct {
	// AllowAdditionalProperties leaves "additionalProperties" out of the
	// schemas of structs, so that objects may carry members the struct does
	// not name (encoding/json ignores them). By default struct schemas say
	// "additionalProperties": false, and a model that misspells a member is
	// told so instead of having it silently dropped.
	AllowAdditionalProperties bool
	// TypeSchemas gives the schema of particular types, replacing inference
	// for them: for example a type with its own MarshalJSON. Each must be a
	// JSON object.
	TypeSchemas map[reflect.Type]json.RawMessage
	// SafeIntegers bounds the 64-bit integer types (int64, uint64, and int,
	// uint and uintptr where they have 64 bits) to ±[MaxSafeInteger]
	// rather than to their Go range: to the integers that a peer holding
	// numbers as float64 writes exactly. Beyond them, a number may have
	// been rounded on its way (9007199254740993 read and written again as
	// 9007199254740992), so a schema of arguments refuses it rather than
	// take a value the caller did not mean. Narrower types have their Go
	// range either way.
	SafeIntegers bool
}

// For infers the schema of the JSON encoding of T, as encoding/json reads
// and writes it, and compiles it. See the package documentation for the
// rules; types that JSON cannot carry (channels, functions, complex
// numbers) are an error naming the field.
func For[T any](opts *InferOptions) (*Schema, error) {
	return forType(reflect.TypeFor[T](), opts)
}

// forType is For for a reflect.Type.
func forType(t reflect.Type, opts *InferOptions) (*Schema, error) {
	in := &inferrer{recursive: map[reflect.Type]bool{}, names: map[reflect.Type]string{}, used: map[string]bool{}}
	if opts != nil {
		in.opts = *opts
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	in.root = t
	in.findRecursive(t, map[reflect.Type]bool{}, map[reflect.Type]bool{})
	v, err := in.schema(t, t.String())
	if err != nil {
		return nil, err
	}
	root, ok := v.(obj)
	if !ok {
		return nil, fmt.Errorf("jsonschema: %s: the schema of the root must be an object", t)
	}
	if len(in.defs) > 0 {
		root = append(root, kv{"$defs", in.defs})
	}
	raw := appendJSON(nil, root)
	// The schema is valid by construction, unless TypeSchemas put in
	// parts written by hand.
	s, err := compile(raw, &CompileOptions{MaxBytes: -1, MaxDepth: -1, MaxComposition: -1}, len(in.opts.TypeSchemas) == 0, registeredFull())
	if err != nil {
		return nil, fmt.Errorf("jsonschema: schema inferred for %s: %w", t, err)
	}
	return s, nil
}

type inferrer struct {
	opts      InferOptions
	root      reflect.Type
	recursive map[reflect.Type]bool   // struct types reachable from themselves
	names     map[reflect.Type]string // $defs names given so far
	used      map[string]bool
	defs      obj
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	numberType      = reflect.TypeFor[json.Number]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshalType = reflect.TypeFor[encoding.TextMarshaler]()
)

// elemTypes lists the types whose schemas the schema of t is made of.
func elemTypes(t reflect.Type) []reflect.Type {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return []reflect.Type{t.Elem()}
	case reflect.Struct:
		var out []reflect.Type
		for _, f := range structFields(t) {
			out = append(out, f.typ)
		}
		return out
	}
	return nil
}

// findRecursive marks the named types met again while their own schema is
// being made: those become $defs entries (or "#" for the root), which
// breaks every cycle, since every cycle re-enters some type on the path,
// and Go types can only be recursive through a named type.
func (in *inferrer) findRecursive(t reflect.Type, onPath, done map[reflect.Type]bool) {
	if in.special(t) != nil {
		return
	}
	named := t.Name() != ""
	if named {
		if onPath[t] {
			in.recursive[t] = true
			return
		}
		if done[t] {
			return
		}
		onPath[t] = true
	}
	for _, e := range elemTypes(t) {
		in.findRecursive(e, onPath, done)
	}
	if named {
		delete(onPath, t)
		done[t] = true
	}
}

// special returns the schema of types with their own JSON encoding, or nil.
func (in *inferrer) special(t reflect.Type) any {
	if raw, ok := in.opts.TypeSchemas[t]; ok {
		return rawObj(raw)
	}
	switch t {
	case timeType:
		return obj{{"type", "string"}, {"format", "date-time"}}
	case rawMessageType:
		return obj{}
	case numberType:
		return obj{{"type", "number"}}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		switch {
		case t.Implements(marshalerType) || pt.Implements(marshalerType):
			return obj{} // its own encoding: anything
		case t.Implements(textMarshalType) || pt.Implements(textMarshalType):
			return obj{{"type", "string"}}
		}
	}
	return nil
}

// schema returns the schema of t; path names it in errors.
func (in *inferrer) schema(t reflect.Type, path string) (any, error) {
	if s := in.special(t); s != nil {
		return s, nil
	}
	if in.recursive[t] {
		return in.ref(t, path)
	}
	return in.build(t, path)
}

// build makes the schema of t from its kind.
func (in *inferrer) build(t reflect.Type, path string) (any, error) {
	switch t.Kind() {
	case reflect.Bool:
		return obj{{"type", "boolean"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return in.numberSchema(t), nil
	case reflect.String:
		return obj{{"type", "string"}}, nil
	case reflect.Interface:
		return obj{}, nil
	case reflect.Pointer:
		s, err := in.schema(t.Elem(), path)
		return nullable(s), err
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && in.special(t.Elem()) == nil {
			return obj{{"type", []string{"string", "null"}}, {"contentEncoding", "base64"}}, nil
		}
		items, err := in.schema(t.Elem(), path+"[]")
		return obj{{"type", []string{"array", "null"}}, {"items", items}}, err
	case reflect.Array:
		items, err := in.schema(t.Elem(), path+"[]")
		return obj{{"type", "array"}, {"items", items}, {"minItems", t.Len()}, {"maxItems", t.Len()}}, err
	case reflect.Map:
		s := obj{{"type", []string{"object", "null"}}}
		k := t.Key()
		switch {
		case k.Kind() == reflect.String:
		case reflect.PointerTo(k).Implements(textMarshalType) || k.Implements(textMarshalType):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Int64:
			s = append(s, kv{"propertyNames", obj{{"pattern", "^-?[0-9]+$"}}})
		case k.Kind() >= reflect.Uint && k.Kind() <= reflect.Uintptr:
			s = append(s, kv{"propertyNames", obj{{"pattern", "^[0-9]+$"}}})
		default:
			return nil, fmt.Errorf("jsonschema: %s: map key type %s cannot be a JSON member name", path, k)
		}
		v, err := in.schema(t.Elem(), path+"[key]")
		return append(s, kv{"additionalProperties", v}), err
	case reflect.Struct:
		return in.structSchema(t, path)
	}
	return nil, fmt.Errorf("jsonschema: %s: cannot express Go type %s in JSON Schema", path, t)
}

// ref returns a $ref to the schema of the recursive type t, defining it
// on first use: under $defs, or inline at the root when t is the root.
func (in *inferrer) ref(t reflect.Type, path string) (any, error) {
	if t == in.root {
		if _, started := in.names[t]; started {
			return obj{{"$ref", "#"}}, nil
		}
		in.names[t] = "#"
		return in.build(t, path)
	}
	if name, ok := in.names[t]; ok {
		return obj{{"$ref", "#/$defs/" + name}}, nil
	}
	name := defName(t)
	for k := 2; in.used[name]; k++ {
		name = defName(t) + "_" + strconv.Itoa(k)
	}
	in.used[name] = true
	in.names[t] = name
	at := len(in.defs)
	in.defs = append(in.defs, kv{name, nil})
	s, err := in.build(t, t.String())
	in.defs[at].v = s
	return obj{{"$ref", "#/$defs/" + name}}, err
}

// defName makes a $defs key from a type name that needs no escaping in a
// URI fragment or JSON pointer.
func defName(t reflect.Type) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, t.Name())
}

func (in *inferrer) structSchema(t reflect.Type, path string) (any, error) {
	props := obj{}
	var required []string
	for _, f := range structFields(t) {
		fpath := path + "." + f.goName
		var s any
		var err error
		if f.quoted {
			s = obj{{"type", "string"}}
			if f.typ.Kind() == reflect.Pointer {
				s = nullable(s)
			}
		} else if s, err = in.schema(f.typ, fpath); err != nil {
			return nil, err
		}
		if f.desc != "" {
			s = withDescription(s, f.desc)
		}
		props = append(props, kv{f.name, s})
		if !f.optional && f.typ.Kind() != reflect.Pointer {
			required = append(required, f.name)
		}
	}
	s := obj{{"type", "object"}, {"properties", props}}
	if len(required) > 0 {
		s = append(s, kv{"required", required})
	}
	if !in.opts.AllowAdditionalProperties {
		s = append(s, kv{"additionalProperties", false})
	}
	return s, nil
}

// nullable widens a schema to accept null, as encoding/json writes a nil
// pointer, slice or map.
func nullable(s any) any {
	o, ok := s.(obj)
	if !ok {
		return s
	}
	if len(o) == 0 {
		return o // accepts everything already
	}
	for i, m := range o {
		if m.k != "type" {
			continue
		}
		switch typ := m.v.(type) {
		case string:
			out := append(obj(nil), o...)
			out[i].v = []string{typ, "null"}
			return out
		case []string:
			for _, name := range typ {
				if name == "null" {
					return o
				}
			}
			out := append(obj(nil), o...)
			out[i].v = append(append([]string(nil), typ...), "null")
			return out
		}
	}
	return obj{{"anyOf", []any{o, obj{{"type", "null"}}}}}
}

// withDescription sets "description", after "type" when there is one.
func withDescription(s any, desc string) any {
	o, _ := s.(obj)
	out := make(obj, 0, len(o)+1)
	placed := false
	for _, m := range o {
		if m.k == "description" {
			continue
		}
		out = append(out, m)
		if m.k == "type" {
			out = append(out, kv{"description", desc})
			placed = true
		}
	}
	if !placed {
		out = append(obj{{"description", desc}}, out...)
	}
	return out
}
