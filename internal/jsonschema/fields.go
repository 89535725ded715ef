package jsonschema

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// A field is a struct member as encoding/json sees it: after promotion of
// embedded structs' fields and resolution of name conflicts.
type field struct {
	name     string // JSON member name
	goName   string // Go selector, such as "Inner.Count", for errors
	typ      reflect.Type
	index    []int
	tagged   bool // the name comes from a json tag
	optional bool // omitempty or omitzero
	quoted   bool // the ",string" option applies
	desc     string
}

// structFields lists the JSON members of struct type t in the order
// encoding/json writes them, following its rules: exported fields only;
// json:"-" skips a field; embedded structs without a name in their tag
// have their fields promoted; among fields with the same name, the
// shallowest wins, then the tagged one, and a tie hides them all.
func structFields(t reflect.Type) []field {
	type embedded struct {
		typ    reflect.Type
		index  []int
		goName string
	}
	var all []field
	current := []embedded{{typ: t}}
	explored := map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []embedded
		thisLevel := map[reflect.Type]int{}
		for _, e := range current {
			// A type met again at this depth is explored twice, so that
			// its fields tie and hide each other, as in encoding/json; a
			// type met at a shallower depth is not explored again.
			if explored[e.typ] || thisLevel[e.typ] >= 2 {
				continue
			}
			thisLevel[e.typ]++
			for i := range e.typ.NumField() {
				sf := e.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validName(name) {
					name = ""
				}
				index := append(slices.Clip(e.index), i)
				goName := sf.Name
				if e.goName != "" {
					goName = e.goName + "." + sf.Name
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := field{
						name:     cmp.Or(name, sf.Name),
						goName:   goName,
						typ:      sf.Type,
						index:    index,
						tagged:   name != "",
						optional: hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
						desc:     sf.Tag.Get("jsonschema"),
					}
					if hasOption(opts, "string") {
						qt := sf.Type
						if qt.Name() == "" && qt.Kind() == reflect.Pointer {
							qt = qt.Elem()
						}
						switch qt.Kind() {
						case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
							reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
							f.quoted = true
						}
					}
					all = append(all, f)
					continue
				}
				next = append(next, embedded{typ: ft, index: index, goName: goName})
			}
		}
		for typ := range thisLevel {
			explored[typ] = true
		}
		current = next
	}

	// Resolve conflicts: sort by name, then depth, then tagged first.
	slices.SortStableFunc(all, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var out []field
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		if len(group) == 1 || len(group[0].index) < len(group[1].index) || group[0].tagged != group[1].tagged {
			out = append(out, group[0])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validName reports whether a json tag name is usable, as encoding/json
// decides: letters, digits and a set of punctuation.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) {
			return false
		}
	}
	return true
}
